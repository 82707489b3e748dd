/**
 * A POSIX shell's syntax as busybox ash reads it, turned into a tree the
 * interpreter (shellInterpreter.ts) walks: simple commands with their
 * assignments and redirections, pipelines, `&&`/`||` lists, `if`, `while`,
 * `until`, `for`, `case`, `{ }` groups, `( )` subshells and functions.
 * Words keep their quoting and their expansions (`$VAR`, `${VAR:-x}`,
 * `$( )`, backticks, `$(( ))`) unexpanded: they are expanded when the
 * command runs. A syntax error carries ash's wording (`unexpected "done"`),
 * and whether more input could complete it (an interactive shell's `> `).
 */

/** One piece of a word: literal text or an expansion, quoted or not (unquoted results are split into fields). */
export type WordPart =
  | { type: 'lit'; text: string; quoted: boolean }
  | { type: 'param'; name: string; op?: ParamOp; arg?: Word; length?: boolean; quoted: boolean }
  | { type: 'cmd'; body: List; quoted: boolean }
  | { type: 'arith'; expr: Word; quoted: boolean };
export type Word = WordPart[];

/** ${NAME<op>WORD}: the defaults, alternatives, errors and pattern removals ash supports; `:` is bash's ${NAME:OFFSET:LENGTH}. */
export type ParamOp = ':-' | '-' | ':=' | '=' | ':+' | '+' | ':?' | '?' | '#' | '##' | '%' | '%%' | ':';

export interface Redirect {
  fd: number;
  op: '>' | '>>' | '<' | '>&' | '<&' | '<>' | '>|' | '<<' | '<<-';
  target: Word;
  /** A here-document's body (its lines, with expansions unless the delimiter was quoted). */
  here?: Word;
}

export type Command =
  | { type: 'simple'; assigns: { name: string; value: Word }[]; words: Word[]; redirects: Redirect[]; line: number; conditional?: boolean }
  | { type: 'pipeline'; commands: Command[]; bang: boolean }
  | { type: 'andor'; first: Command; rest: { op: '&&' | '||'; command: Command }[] }
  | { type: 'if'; clauses: { cond: List; body: List }[]; otherwise?: List; redirects: Redirect[] }
  | { type: 'loop'; until: boolean; cond: List; body: List; redirects: Redirect[] }
  | { type: 'for'; name: string; items?: Word[]; body: List; redirects: Redirect[] }
  | { type: 'case'; word: Word; items: { patterns: Word[]; body: List }[]; redirects: Redirect[] }
  | { type: 'group'; body: List; subshell: boolean; redirects: Redirect[] }
  | { type: 'function'; name: string; body: Command };

/** Commands run one after another (`;`, `&` and newlines; a background `&` runs in turn). */
export interface List {
  commands: Command[];
  /** The indexes of the commands ended by `&` (run in the background). */
  background?: number[];
}

/** What the shell prints after `syntax error: `, and whether the input ended too early. */
export class ShellSyntaxError extends Error {
  constructor(
    message: string,
    readonly incomplete: boolean,
    readonly line: number,
    /** bash's wording: the token it did not expect (`done`), or undefined at the end of the input. */
    readonly token?: string,
  ) {
    super(message);
  }
}

type Token =
  | { t: 'eof' }
  | { t: 'nl' }
  | { t: 'op'; v: ';' | '&' | '&&' | '||' | '|' | '(' | ')' | ';;' }
  | { t: 'redir'; fd: number; op: Redirect['op'] }
  | { t: 'word'; word: Word; raw: string };

const keywords = new Set(['!', 'case', 'do', 'done', 'elif', 'else', 'esac', 'fi', 'for', 'if', 'in', 'then', 'until', 'while', '{', '}']);
const nameRe = /^[A-Za-z_][A-Za-z0-9_]*$/;
const closers = new Set(['then', 'elif', 'else', 'fi', 'do', 'done', 'esac', '}']);

/** ash's tokname: the structural tokens unquoted, operators and keywords in quotes. */
function tokenName(tok: Token): string {
  switch (tok.t) {
    case 'eof':
      return 'end of file';
    case 'nl':
      return 'newline';
    case 'redir':
      return 'redirection';
    case 'op':
      return `"${tok.v}"`;
    case 'word': {
      const kw = keywordOf(tok);
      return kw ? `"${kw}"` : 'word';
    }
  }
}

/** The keyword a token is, when it is one: a plain unquoted word. */
function keywordOf(tok: Token): string | undefined {
  if (tok.t !== 'word' || tok.word.length !== 1) return undefined;
  const p = tok.word[0]!;
  return p.type === 'lit' && !p.quoted && keywords.has(p.text) ? p.text : undefined;
}

/** The text of a word with no expansions or quotes, else undefined. */
export function plainWord(word: Word): string | undefined {
  let s = '';
  for (const p of word) {
    if (p.type !== 'lit') return undefined;
    s += p.text;
  }
  return s;
}

class Parser {
  private pos = 0;
  private line = 1;
  private peeked: { tok: Token; pos: number; line: number; start: number } | undefined;
  /** Here-documents whose bodies start after the next newline. */
  private pendingHere: { redirect: Redirect; delimiter: string; quoted: boolean; strip: boolean }[] = [];

  constructor(
    private readonly src: string,
    /** Where this parser stops (a command substitution's `)`). */
    private readonly nested = false,
  ) {}

  get offset(): number {
    return this.peeked ? this.peeked.start : this.pos;
  }

  private error(tok: Token, expecting?: string): never {
    const msg = `unexpected ${tokenName(tok)}${expecting ? ` (expecting ${expecting})` : ''}`;
    const bashToken = tok.t === 'eof' ? undefined : tok.t === 'nl' ? 'newline' : tok.t === 'op' ? tok.v : tok.t === 'redir' ? tok.op : (keywordOf(tok) ?? plainWord(tok.word) ?? 'word');
    throw new ShellSyntaxError(msg, tok.t === 'eof' && !this.nested, this.line, bashToken);
  }

  private peek(): Token {
    if (!this.peeked) {
      const save = { pos: this.pos, line: this.line };
      const start = this.skipBlanks();
      const tok = this.lex();
      this.peeked = { tok, pos: this.pos, line: this.line, start };
      this.pos = save.pos;
      this.line = save.line;
    }
    return this.peeked.tok;
  }

  private next(): Token {
    const tok = this.peek();
    this.pos = this.peeked!.pos;
    this.line = this.peeked!.line;
    this.peeked = undefined;
    if (tok.t === 'nl') this.readHereDocs();
    return tok;
  }

  private skipBlanks(): number {
    for (;;) {
      const c = this.src[this.pos];
      if (c === ' ' || c === '\t') this.pos++;
      else if (c === '\\' && this.src[this.pos + 1] === '\n') {
        this.pos += 2;
        this.line++;
      } else if (c === '#') {
        while (this.pos < this.src.length && this.src[this.pos] !== '\n') this.pos++;
      } else return this.pos;
    }
  }

  private lex(): Token {
    const s = this.src;
    const c = s[this.pos];
    if (c === undefined) return { t: 'eof' };
    if (c === '\n') {
      this.pos++;
      this.line++;
      return { t: 'nl' };
    }
    const two = s.slice(this.pos, this.pos + 2);
    if (two === '&&' || two === '||' || two === ';;') {
      this.pos += 2;
      return { t: 'op', v: two };
    }
    if (c === ';' || c === '&' || c === '|' || c === '(' || c === ')') {
      this.pos++;
      return { t: 'op', v: c };
    }
    const io = /^(\d*)(<<-|<<|>>|>&|<&|<>|>\||<|>)/.exec(s.slice(this.pos, this.pos + 8));
    if (io) {
      this.pos += io[0].length;
      const op = io[2] as Redirect['op'];
      return { t: 'redir', fd: io[1] ? Number(io[1]) : op.startsWith('<') ? 0 : 1, op };
    }
    const start = this.pos;
    const word = this.readWord((ch) => ' \t\n;&|()<>'.includes(ch));
    return { t: 'word', word, raw: s.slice(start, this.pos) };
  }

  /** Reads word parts until an unquoted character `stop` accepts (or the end). */
  private readWord(stop: (c: string) => boolean): Word {
    const s = this.src;
    const parts: Word = [];
    const lit = (text: string, quoted: boolean) => {
      const last = parts[parts.length - 1];
      if (last?.type === 'lit' && last.quoted === quoted) last.text += text;
      else parts.push({ type: 'lit', text, quoted });
    };
    while (this.pos < s.length) {
      const c = s[this.pos]!;
      if (stop(c)) break;
      if (c === "'") {
        const close = s.indexOf("'", this.pos + 1);
        if (close < 0) this.unterminated();
        const text = s.slice(this.pos + 1, close);
        this.line += text.split('\n').length - 1;
        lit(text, true);
        this.pos = close + 1;
      } else if (c === '"') {
        this.pos++;
        const before = parts.length;
        this.readDoubleQuoted(parts, lit);
        if (parts.length === before) parts.push({ type: 'lit', text: '', quoted: true });
      } else if (c === '\\') {
        const n = s[this.pos + 1];
        if (n === undefined) {
          lit('\\', false);
          this.pos++;
        } else if (n === '\n') {
          this.pos += 2;
          this.line++;
        } else {
          lit(n, true);
          this.pos += 2;
        }
      } else if (c === '$') {
        const part = this.readDollar(false, lit);
        if (part) parts.push(part);
      }
      else if (c === '`') parts.push(this.readBackquote(false));
      else {
        if (c === '\n') this.line++;
        lit(c, false);
        this.pos++;
      }
    }
    return parts;
  }

  private unterminated(): never {
    throw new ShellSyntaxError('unterminated quoted string', true, this.line);
  }

  private readDoubleQuoted(parts: Word, lit: (t: string, q: boolean) => void): void {
    const s = this.src;
    for (;;) {
      const c = s[this.pos];
      if (c === undefined) this.unterminated();
      if (c === '"') {
        this.pos++;
        return;
      }
      if (c === '\\' && '$`"\\\n'.includes(s[this.pos + 1] ?? '')) {
        if (s[this.pos + 1] === '\n') this.line++;
        else lit(s[this.pos + 1]!, true);
        this.pos += 2;
      } else if (c === '$') {
        const part = this.readDollar(true, lit);
        if (part) parts.push(part);
      } else if (c === '`') parts.push(this.readBackquote(true));
      else {
        if (c === '\n') this.line++;
        lit(c, true);
        this.pos++;
      }
    }
  }

  /** At a `$`: an expansion, or undefined for a literal `$` (added through lit). */
  readDollar(quoted: boolean, lit: (t: string, q: boolean) => void): WordPart | undefined {
    const s = this.src;
    const after = s[this.pos + 1];
    if (after === '(' && s[this.pos + 2] === '(') {
      const start = this.pos + 3;
      let depth = 0;
      let i = start;
      for (; i < s.length; i++) {
        if (s[i] === '(') depth++;
        else if (s[i] === ')') {
          if (depth === 0 && s[i + 1] === ')') break;
          depth--;
        }
      }
      if (i >= s.length) throw new ShellSyntaxError('unexpected end of file (expecting "))")', true, this.line);
      const inner = s.slice(start, i);
      this.pos = i + 2;
      return { type: 'arith', expr: parseFragment(inner), quoted };
    }
    if (after === '(') {
      const sub = new Parser(s, true);
      sub.pos = this.pos + 2;
      sub.line = this.line;
      const body = sub.parseList(new Set());
      const close = sub.next();
      if (close.t !== 'op' || close.v !== ')') sub.error(close, '")"');
      this.pos = sub.pos;
      this.line = sub.line;
      return { type: 'cmd', body, quoted };
    }
    if (after === '{') {
      let i = this.pos + 2;
      let length = false;
      if (s[i] === '#' && s[i + 1] !== '}' && !/^[:=?+-]/.test(s[i + 1] ?? '')) {
        length = true;
        i++;
      }
      const m = /^([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[#?$!@*0-])/.exec(s.slice(i));
      if (!m) throw new ShellSyntaxError(`bad substitution`, false, this.line);
      const name = m[1]!;
      i += name.length;
      const opm = /^(:-|:=|:\+|:\?|##|%%|[-=+?#%:])/.exec(s.slice(i));
      this.pos = i;
      if (!opm) {
        if (s[i] !== '}') throw new ShellSyntaxError('bad substitution', s[i] === undefined, this.line);
        this.pos = i + 1;
        return { type: 'param', name, quoted, ...(length ? { length } : {}) };
      }
      this.pos = i + opm[1]!.length;
      let depth = 0;
      const arg = this.readWord((ch) => {
        if (ch === '{') depth++;
        if (ch === '}') return depth-- === 0;
        return false;
      });
      if (s[this.pos] !== '}') throw new ShellSyntaxError('bad substitution', true, this.line);
      this.pos++;
      if (quoted) for (const p of arg) if (p.type === 'lit') p.quoted = true;
      return { type: 'param', name, op: opm[1] as ParamOp, arg, quoted };
    }
    const m = /^([A-Za-z_][A-Za-z0-9_]*|[0-9#?$!@*-])/.exec(s.slice(this.pos + 1));
    if (!m) {
      lit('$', quoted);
      this.pos++;
      return undefined;
    }
    this.pos += 1 + m[1]!.length;
    return { type: 'param', name: m[1]!, quoted };
  }

  readBackquote(quoted: boolean): WordPart {
    const s = this.src;
    let i = this.pos + 1;
    let inner = '';
    for (; i < s.length && s[i] !== '`'; i++) {
      if (s[i] === '\\' && '$`\\'.includes(s[i + 1] ?? '')) inner += s[++i];
      else inner += s[i];
    }
    if (i >= s.length) throw new ShellSyntaxError('unexpected end of file (expecting "`")', true, this.line);
    this.pos = i + 1;
    const body = parseScript(inner);
    this.line += inner.split('\n').length - 1;
    return { type: 'cmd', body, quoted };
  }

  private readHereDocs(): void {
    const pending = this.pendingHere;
    this.pendingHere = [];
    for (const h of pending) {
      const lines: string[] = [];
      for (;;) {
        if (this.pos >= this.src.length) {
          throw new ShellSyntaxError(`unexpected end of file (expecting "${h.delimiter}")`, true, this.line);
        }
        const nl = this.src.indexOf('\n', this.pos);
        const end = nl < 0 ? this.src.length : nl;
        let text = this.src.slice(this.pos, end);
        this.pos = nl < 0 ? end : end + 1;
        this.line++;
        if (h.strip) text = text.replace(/^\t+/, '');
        if (text === h.delimiter) break;
        lines.push(text + '\n');
      }
      const body = lines.join('');
      h.redirect.here = h.quoted ? [{ type: 'lit', text: body, quoted: true }] : parseFragment(body);
    }
  }

  private skipNewlines(): void {
    while (this.peek().t === 'nl') this.next();
  }

  private isKeyword(tok: Token, ...kws: string[]): boolean {
    const kw = keywordOf(tok);
    return kw !== undefined && kws.includes(kw);
  }

  /** A list up to a keyword of `stops`, `)`, `;;` or the end. */
  parseList(stops: ReadonlySet<string>): List {
    const commands: Command[] = [];
    const background: number[] = [];
    for (;;) {
      this.skipNewlines();
      const tok = this.peek();
      if (tok.t === 'eof') break;
      if (tok.t === 'op' && (tok.v === ')' || tok.v === ';;')) break;
      const kw = keywordOf(tok);
      // A keyword that closes a construct ends the list; the construct's parser says what it expected.
      if (kw && (stops.has(kw) || closers.has(kw))) break;
      commands.push(this.parseAndOr());
      const sep = this.peek();
      if (sep.t === 'op' && sep.v === '&') background.push(commands.length - 1);
      if (sep.t === 'op' && (sep.v === ';' || sep.v === '&')) this.next();
      else if (sep.t === 'nl') this.next();
      else break;
    }
    return background.length ? { commands, background } : { commands };
  }

  /** A list that must hold a command before its terminator. */
  private parseBody(stops: ReadonlySet<string>): List {
    const list = this.parseList(stops);
    if (!list.commands.length) this.error(this.peek());
    return list;
  }

  private parseAndOr(): Command {
    const first = this.parsePipeline();
    const rest: { op: '&&' | '||'; command: Command }[] = [];
    for (;;) {
      const tok = this.peek();
      if (tok.t !== 'op' || (tok.v !== '&&' && tok.v !== '||')) break;
      this.next();
      this.skipNewlines();
      rest.push({ op: tok.v, command: this.parsePipeline() });
    }
    return rest.length ? { type: 'andor', first, rest } : first;
  }

  private parsePipeline(): Command {
    let bang = false;
    if (this.isKeyword(this.peek(), '!')) {
      this.next();
      bang = true;
    }
    const commands = [this.parseCommand()];
    for (;;) {
      const tok = this.peek();
      if (tok.t !== 'op' || tok.v !== '|') break;
      this.next();
      this.skipNewlines();
      commands.push(this.parseCommand());
    }
    return commands.length > 1 || bang ? { type: 'pipeline', commands, bang } : commands[0]!;
  }

  private expectKeyword(kw: string): void {
    const tok = this.next();
    if (!this.isKeyword(tok, kw)) this.error(tok, `"${kw}"`);
  }

  private parseRedirects(redirects: Redirect[]): void {
    while (this.peek().t === 'redir') redirects.push(this.parseRedirect());
  }

  private parseRedirect(): Redirect {
    const tok = this.next() as Extract<Token, { t: 'redir' }>;
    const target = this.next();
    if (target.t !== 'word') this.error(target);
    const redirect: Redirect = { fd: tok.fd, op: tok.op, target: target.word };
    if (tok.op === '<<' || tok.op === '<<-') {
      const quoted = target.word.some((p) => p.type === 'lit' && p.quoted);
      this.pendingHere.push({ redirect, delimiter: target.word.map((p) => (p.type === 'lit' ? p.text : '')).join(''), quoted, strip: tok.op === '<<-' });
    }
    return redirect;
  }

  private parseCommand(): Command {
    const tok = this.peek();
    const kw = keywordOf(tok);
    const redirects: Redirect[] = [];
    let cmd: Command;
    if (kw === 'if') {
      this.next();
      const clauses: { cond: List; body: List }[] = [];
      let otherwise: List | undefined;
      const cond = this.parseBody(new Set(['then']));
      this.expectKeyword('then');
      clauses.push({ cond, body: this.parseBody(new Set(['elif', 'else', 'fi'])) });
      for (;;) {
        const t = this.next();
        const k = keywordOf(t);
        if (k === 'elif') {
          const c = this.parseBody(new Set(['then']));
          this.expectKeyword('then');
          clauses.push({ cond: c, body: this.parseBody(new Set(['elif', 'else', 'fi'])) });
        } else if (k === 'else') {
          otherwise = this.parseBody(new Set(['fi']));
          this.expectKeyword('fi');
          break;
        } else if (k === 'fi') break;
        else this.error(t, '"fi"');
      }
      cmd = { type: 'if', clauses, ...(otherwise ? { otherwise } : {}), redirects };
    } else if (kw === 'while' || kw === 'until') {
      this.next();
      const cond = this.parseBody(new Set(['do']));
      this.expectKeyword('do');
      const body = this.parseBody(new Set(['done']));
      this.expectKeyword('done');
      cmd = { type: 'loop', until: kw === 'until', cond, body, redirects };
    } else if (kw === 'for') {
      this.next();
      const nameTok = this.next();
      const name = nameTok.t === 'word' ? plainWord(nameTok.word) : undefined;
      if (!name || !nameRe.test(name)) this.error(nameTok);
      let items: Word[] | undefined;
      this.skipNewlines();
      if (this.isKeyword(this.peek(), 'in')) {
        this.next();
        items = [];
        for (;;) {
          const t = this.peek();
          if (t.t !== 'word') break;
          this.next();
          items.push(t.word);
        }
        const sep = this.next();
        if (!(sep.t === 'nl' || (sep.t === 'op' && sep.v === ';'))) this.error(sep, '"do"');
      } else if (this.peek().t === 'op' && (this.peek() as { v: string }).v === ';') this.next();
      this.skipNewlines();
      this.expectKeyword('do');
      const body = this.parseBody(new Set(['done']));
      this.expectKeyword('done');
      cmd = { type: 'for', name, ...(items ? { items } : {}), body, redirects };
    } else if (kw === 'case') {
      this.next();
      const wt = this.next();
      if (wt.t !== 'word') this.error(wt);
      this.skipNewlines();
      this.expectKeyword('in');
      const items: { patterns: Word[]; body: List }[] = [];
      for (;;) {
        this.skipNewlines();
        let t = this.next();
        if (this.isKeyword(t, 'esac')) break;
        if (t.t === 'op' && t.v === '(') t = this.next();
        const patterns: Word[] = [];
        for (;;) {
          if (t.t !== 'word') this.error(t);
          patterns.push(t.word);
          const sep = this.next();
          if (sep.t === 'op' && sep.v === ')') break;
          if (!(sep.t === 'op' && sep.v === '|')) this.error(sep, '")"');
          t = this.next();
        }
        const body = this.parseList(new Set(['esac']));
        items.push({ patterns, body });
        const end = this.next();
        if (this.isKeyword(end, 'esac')) break;
        if (!(end.t === 'op' && end.v === ';;')) this.error(end, '";;"');
      }
      cmd = { type: 'case', word: wt.word, items, redirects };
    } else if (kw === '{') {
      this.next();
      const body = this.parseBody(new Set(['}']));
      this.expectKeyword('}');
      cmd = { type: 'group', body, subshell: false, redirects };
    } else if (tok.t === 'op' && tok.v === '(') {
      this.next();
      const body = this.parseBody(new Set());
      const close = this.next();
      if (!(close.t === 'op' && close.v === ')')) this.error(close, '")"');
      cmd = { type: 'group', body, subshell: true, redirects };
    } else if (kw && kw !== '!') {
      this.error(this.next());
    } else return this.parseSimple();
    this.parseRedirects(redirects);
    return cmd;
  }

  private parseSimple(): Command {
    const line = this.line;
    const assigns: { name: string; value: Word }[] = [];
    const words: Word[] = [];
    const redirects: Redirect[] = [];
    for (;;) {
      const tok = this.peek();
      if (tok.t === 'redir') {
        redirects.push(this.parseRedirect());
        continue;
      }
      if (tok.t !== 'word') break;
      const first = tok.word[0];
      const eq = first?.type === 'lit' && !first.quoted ? /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(first.text) : null;
      if (!words.length && eq) {
        this.next();
        const rest = first!.type === 'lit' ? first!.text.slice(eq[0].length) : '';
        const value: Word = [...(rest ? [{ type: 'lit' as const, text: rest, quoted: false }] : []), ...tok.word.slice(1)];
        assigns.push({ name: eq[1]!, value });
        continue;
      }
      if (words.length === 0 && assigns.length === 0 && redirects.length === 0) {
        // NAME() { ...; }: a function definition.
        const name = plainWord(tok.word);
        if (name !== undefined && nameRe.test(name) && this.src.slice(this.peeked!.pos).match(/^[ \t]*\([ \t]*\)/)) {
          this.next();
          this.next();
          const close = this.next();
          if (!(close.t === 'op' && close.v === ')')) this.error(close, '")"');
          this.skipNewlines();
          return { type: 'function', name, body: this.parseCommand() };
        }
      }
      this.next();
      words.push(tok.word);
      if (words.length === 1 && !assigns.length && plainWord(tok.word) === '[[') return this.parseConditional(words, line);
    }
    if (!words.length && !assigns.length && !redirects.length) this.error(this.next());
    return { type: 'simple', assigns, words, redirects, line };
  }

  /** `[[ ... ]]` (ash's bash compatibility): its operators are words up to `]]`, and its words are not split. */
  private parseConditional(words: Word[], line: number): Command {
    for (;;) {
      const t = this.next();
      if (t.t === 'word') {
        words.push(t.word);
        if (plainWord(t.word) === ']]') break;
      } else if (t.t === 'op' && t.v !== ';' && t.v !== '&' && t.v !== ';;') words.push([{ type: 'lit', text: t.v, quoted: false }]);
      else if (t.t === 'redir' && (t.op === '<' || t.op === '>')) words.push([{ type: 'lit', text: t.op, quoted: false }]);
      else this.error(t, '"]]"');
    }
    const redirects: Redirect[] = [];
    this.parseRedirects(redirects);
    return { type: 'simple', assigns: [], words, redirects, line, conditional: true };
  }

  /** The input as the inside of double quotes: expansions, and backslash escaping only `$`, backquote and itself. */
  fragment(): Word {
    const src = this.src;
    const parts: Word = [];
    const lit = (text: string) => {
      const last = parts[parts.length - 1];
      if (last?.type === 'lit') last.text += text;
      else parts.push({ type: 'lit', text, quoted: true });
    };
    while (this.pos < src.length) {
      const c = src[this.pos]!;
      if (c === '\\' && '$`\\'.includes(src[this.pos + 1] ?? '')) {
        lit(src[this.pos + 1]!);
        this.pos += 2;
      } else if (c === '$') {
        const part = this.readDollar(true, lit);
        if (part) parts.push(part);
      } else if (c === '`') parts.push(this.readBackquote(true));
      else {
        lit(c);
        this.pos++;
      }
    }
    return parts;
  }

  /** The whole input as one list; anything left over is unexpected. */
  parseAll(): List {
    const list = this.parseList(new Set());
    const tok = this.peek();
    if (tok.t !== 'eof') this.error(this.next());
    return list;
  }
}

/** Parses a script (`sh -c`'s argument, a line, a file); throws ShellSyntaxError. */
export function parseScript(src: string): List {
  return new Parser(src).parseAll();
}

/**
 * Parses text as the inside of double quotes (an arithmetic expression, a
 * here-document): expansions are found, quotes stay characters.
 */
function parseFragment(src: string): Word {
  return new Parser(src, true).fragment();
}
