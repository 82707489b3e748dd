import { describe, expect, it } from 'vitest';
import { allCases, needsProtobuf, runCase } from './runner';
import { expectedFailures } from './skips';

// cel-spec conformance (all non-protobuf suites). Listed failures run as
// it.fails, so a test that starts passing fails the run until it is unlisted.
const expected = new Set(Object.values(expectedFailures).flat());
const cases = allCases().filter((c) => !needsProtobuf(c));
const byFile = new Map<string, typeof cases>();
for (const c of cases) {
  if (!byFile.has(c.file)) byFile.set(c.file, []);
  byFile.get(c.file)!.push(c);
}

for (const [file, list] of byFile) {
  describe(file, () => {
    for (const c of list) {
      const name = c.path.slice(file.length + 1);
      const run = (): void => {
        const r = runCase(c);
        expect(r.pass, `${c.original.expr}\n${r.detail}`).toBe(true);
      };
      if (expected.has(c.path)) it.fails(name, run);
      else it(name, run);
    }
  });
}

it('every expected failure names an existing test', () => {
  const paths = new Set(cases.map((c) => c.path));
  expect([...expected].filter((p) => !paths.has(p))).toEqual([]);
});
