/**
 * Values printed the way Go's fmt prints them, for messages that embed them
 * verbatim (field errors, selector parse errors): clients match on the text.
 */

/** Go's %q for a string: double quotes, Go escapes for control characters. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    switch (ch) {
      case '"': out += '\\"'; break;
      case '\\': out += '\\\\'; break;
      case '\n': out += '\\n'; break;
      case '\t': out += '\\t'; break;
      case '\r': out += '\\r'; break;
      case '\x07': out += '\\a'; break;
      case '\b': out += '\\b'; break;
      case '\f': out += '\\f'; break;
      case '\v': out += '\\v'; break;
      default:
        out += code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, '0')}` : ch;
    }
  }
  return `${out}"`;
}

/** Go's %#v for a []string: `[]string{"a", "b"}`, or `[]string(nil)` for a nil slice. */
export function goStringSlice(values: readonly string[] | null): string {
  if (values === null) return '[]string(nil)';
  return `[]string{${values.map(goQuote).join(', ')}}`;
}
