/**
 * The shell's patterns as regular expressions: globs for `case`, pathname
 * expansion and `${VAR#pattern}`, with quoted text matching itself; IFS
 * field splitting; `${VAR:OFFSET:LENGTH}`'s two parts.
 */
import type { FsEntry } from './containerView';

export const globChars = /[*?[]/;

/** A pattern's regular expression; undefined for one that cannot match (a range out of order). */
export function patternRe(source: string, flags = ''): RegExp | undefined {
  try {
    return new RegExp(source, flags);
  } catch {
    return undefined;
  }
}

/** A glob (case pattern, file name) as a regular expression source; `quoted` text matches itself. */
export function globSource(text: string, quoted: boolean, star = '.*'): string {
  if (quoted) return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '*') out += star;
    else if (c === '?') out += star === '.*' ? '.' : '[^/]';
    else if (c === '[') {
      const close = text.indexOf(']', i + 2);
      if (close < 0) out += '\\[';
      else {
        let cls = text.slice(i + 1, close);
        if (cls.startsWith('!')) cls = '^' + cls.slice(1);
        out += `[${cls.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else if (c === '\\' && i + 1 < text.length) out += '\\' + text[++i];
    else out += /[.+^${}()|\]\\/]/.test(c) ? '\\' + c : c;
  }
  return out;
}

/** Pathname expansion of one field's pattern over the files (sorted), or undefined when nothing matches. */
export function glob(files: ReadonlyMap<string, FsEntry>, cwd: string, segments: { source: string; dot: boolean }[], absolute: boolean): string[] | undefined {
  let found: string[] = [absolute ? '/' : cwd];
  for (const seg of segments) {
    const re = patternRe(`^${seg.source}$`);
    if (!re) return undefined;
    const next: string[] = [];
    for (const dir of found) {
      const prefix = dir === '/' ? '/' : dir + '/';
      for (const [p, e] of files) {
        if (!p.startsWith(prefix) || p === '/' || p.slice(prefix.length).includes('/')) continue;
        const name = p.slice(prefix.length);
        if (name.startsWith('.') && !seg.dot) continue;
        if (re.test(name) && (seg === segments[segments.length - 1] || e.type === 'dir')) next.push(p);
      }
    }
    found = next.sort();
    if (!found.length) return undefined;
  }
  const rel = absolute ? found : found.map((p) => p.slice(cwd === '/' ? 1 : cwd.length + 1));
  return rel;
}

/** OFFSET:LENGTH at the colon outside parentheses (an offset may hold `? :`... rarely). */
export function splitSubstring(spec: string): [string, string | undefined] {
  let depth = 0;
  for (let i = 0; i < spec.length; i++) {
    if (spec[i] === '(') depth++;
    else if (spec[i] === ')') depth--;
    else if (spec[i] === ':' && depth === 0) return [spec.slice(0, i), spec.slice(i + 1)];
  }
  return [spec, undefined];
}

const splitters = new Map<string, RegExp>();
/** IFS's characters as a field separator. */
export function splitter(ifs: string): RegExp {
  let re = splitters.get(ifs);
  if (!re) splitters.set(ifs, (re = new RegExp(`[${ifs.replace(/[\]\\^-]/g, '\\$&')}]+`)));
  return re;
}

/** A field's pattern cut at its slashes into one regular expression per path segment. */
export function splitPattern(text: string, pattern: string): { source: string; dot: boolean }[] | undefined {
  const segs = pattern.split('\\/').filter((s, i, all) => s !== '' || (i > 0 && i < all.length - 1));
  const texts = text.split('/').filter(Boolean);
  if (segs.length !== texts.length) return undefined;
  return segs.map((source, i) => ({ source, dot: texts[i]!.startsWith('.') }));
}

/** ${VAR#p} ${VAR##p} ${VAR%p} ${VAR%%p}: the shortest or longest matching prefix or suffix removed. */
export function removePattern(value: string, pattern: string, op: '#' | '##' | '%' | '%%'): string {
  const re = patternRe(`^(?:${pattern})$`, 's');
  if (!re) return value;
  const shortest = op === '#' || op === '%';
  for (let k = 0; k <= value.length; k++) {
    const n = shortest ? k : value.length - k;
    if (op.startsWith('#')) {
      if (re.test(value.slice(0, n))) return value.slice(n);
    } else if (re.test(value.slice(value.length - n))) return value.slice(0, value.length - n);
  }
  return value;
}
