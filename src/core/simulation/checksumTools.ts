/**
 * md5sum, sha1sum, sha256sum and sha512sum as busybox has them: the digest of
 * each file (or stdin, `-`), `<hex>  <name>`; `-c FILE` checks the sums a
 * file lists (`name: OK` / `name: FAILED`, then a warning counting the
 * mismatches), `-s` quietly, `-w` warning about lines that are no sum. The
 * digests are over the bytes (a file kubectl cp put there, a binary one
 * included).
 */
import { md5, sha1 } from '@noble/hashes/legacy';
import { sha256, sha512 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';
import { encodeText } from './byteText';
import { letterFlags, readAll, resolvePath, type Run, type Tool, type ToolContext } from './containerTools';

type Hash = (data: Uint8Array) => Uint8Array;

/** The bytes of a named input (`-` is stdin), or why it cannot be read (busybox's message). */
function* inputBytes(ctx: ToolContext, name: string): Run<Uint8Array | string> {
  if (name === '-') return encodeText(yield* readAll(ctx));
  const e = ctx.files.get(resolvePath(ctx.cwd, name));
  if (!e) return `can't open '${name}': No such file or directory`;
  if (e.type !== 'file') return `can't read '${name}': Is a directory`;
  return e.content;
}

function checksum(tool: string, hash: Hash): Tool {
  const hexLength = hash(new Uint8Array()).length * 2;
  return function* (args: string[], ctx: ToolContext): Run<number> {
    const parsed = letterFlags(args, 'csw', ctx);
    if (!parsed) return 1;
    const { flags, operands: names } = parsed;
    if (!names.length) names.push('-');
    let code = 0;
    if (!flags.has('c')) {
      for (const name of names) {
        const data = yield* inputBytes(ctx, name);
        if (typeof data === 'string') {
          ctx.err(`${tool}: ${data}\n`);
          code = 1;
        } else ctx.out(`${bytesToHex(hash(data))}  ${name}\n`);
      }
      return code;
    }
    // -c: each line of each list is `<hex>  <name>` (or `<hex> *<name>`).
    let failed = 0;
    let checked = 0;
    for (const list of names) {
      const text = yield* inputBytes(ctx, list);
      if (typeof text === 'string') {
        ctx.err(`${tool}: ${text}\n`);
        code = 1;
        continue;
      }
      for (const line of new TextDecoder().decode(text).split('\n')) {
        if (!line) continue;
        const m = new RegExp(`^([0-9a-fA-F]{${hexLength}}) [ *](.+)$`).exec(line);
        if (!m) {
          if (flags.has('w')) ctx.err(`${tool}: invalid format\n`);
          continue;
        }
        const data = yield* inputBytes(ctx, m[2]!);
        const ok = typeof data !== 'string' && bytesToHex(hash(data)) === m[1]!.toLowerCase();
        if (typeof data === 'string') ctx.err(`${tool}: ${data}\n`);
        checked++;
        if (!ok) failed++;
        if (!flags.has('s')) ctx.out(`${m[2]}: ${ok ? 'OK' : 'FAILED'}\n`);
      }
    }
    if (failed) {
      ctx.err(`${tool}: WARNING: ${failed} of ${checked} computed checksums did NOT match\n`);
      code = 1;
    }
    return code;
  };
}

export const checksumTools: ReadonlyArray<readonly [string, Tool]> = [
  ['md5sum', checksum('md5sum', md5)],
  ['sha1sum', checksum('sha1sum', sha1)],
  ['sha256sum', checksum('sha256sum', sha256)],
  ['sha512sum', checksum('sha512sum', sha512)],
];
