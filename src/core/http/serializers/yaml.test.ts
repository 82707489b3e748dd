import { describe, expect, it } from 'vitest';
import { StatusError } from '../../errors';
import { parseYaml } from './yaml';

function statusOf(f: () => unknown) {
  try {
    f();
  } catch (e) {
    if (e instanceof StatusError) return e.status;
    throw e;
  }
  return undefined;
}

describe('YAML bodies', () => {
  it('flow nesting past the parser\'s depth is a 400 before the parser recurses through it (10,545 levels once killed the process)', () => {
    for (const depth of [513, 10_545]) {
      for (const [open, close] of [['[', ']'], ['{a: ', '}']] as const) {
        const text = `data: ${open.repeat(depth)}1${close.repeat(depth)}\n`;
        expect(statusOf(() => parseYaml(text))).toMatchObject({ code: 400, reason: 'BadRequest', message: expect.stringContaining('flow collections nested deeper than 512 levels') });
      }
    }
  });

  it('brackets inside quotes and comments do not count; 512 levels still parse', () => {
    const quoted = `a: "${'['.repeat(20_000)}"\nb: '${'{'.repeat(20_000)}'\n# ${'['.repeat(20_000)}\n`;
    expect(parseYaml(quoted)).toEqual({ a: '['.repeat(20_000), b: '{'.repeat(20_000) });
    let deep: unknown = 1;
    for (let i = 0; i < 512; i++) deep = [deep];
    expect(parseYaml(`data: ${'['.repeat(512)}1${']'.repeat(512)}\n`)).toEqual({ data: deep });
  });
});
