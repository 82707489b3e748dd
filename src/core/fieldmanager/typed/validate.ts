import { elementToString, fieldElement, indexElement, pathToString, type PathElement } from '../fieldpath';
import { DEDUCED, type ListAtom, type MapAtom, type ScalarAtom, type Schema, type TypeNode } from '../schema';
import { goSharpV, goType, goV, isList, isObject, type JsonValue } from '../value';
import { TypedError, type ValidationError } from './errors';
import { listItemElement } from './listItems';

export interface ValidationOptions {
  /** Accept repeated keys in associative lists (the server allows them in stored objects, never in applied ones). */
  allowDuplicates?: boolean;
}

/**
 * Checks a value against its schema as the server does when it converts an
 * object to a typed value: struct fields must be declared, scalars must have
 * their type, associative lists need well-formed, unique keys. Returns every
 * error found (empty when the value fits). Map entries are visited in the
 * value's own order; a struct reports its first undeclared field and looks
 * no further (the server visits a Go map, in no fixed order).
 */
export function validate(schema: Schema, node: TypeNode, value: JsonValue, opts: ValidationOptions = {}): ValidationError[] {
  const v = new Validator(schema, opts.allowDuplicates === true);
  v.visit(node, value, false);
  return v.errors;
}

const hasOwn = Object.prototype.hasOwnProperty;

// The server's unstructured values print themselves with %#v and %v as pointers to this struct.
const sharpV = (v: JsonValue) => `&value.valueUnstructured{Value:${goSharpV(v)}}`;
const plainV = (v: JsonValue) => `&{${goV(v)}}`;

class Validator {
  readonly errors: ValidationError[] = [];
  private readonly path: PathElement[] = [];

  constructor(
    private readonly schema: Schema,
    private readonly allowDuplicates: boolean,
  ) {}

  private fail(message: string): void {
    this.errors.push({ path: pathToString(this.path), message });
  }

  /** `preserve`: an enclosing inline type keeps unknown fields (x-kubernetes-preserve-unknown-fields). */
  visit(node: TypeNode, v: JsonValue, preserve: boolean): void {
    if (node === DEDUCED) return; // schemaless: any value
    if (preserve && this.schema.isNamed(node)) preserve = false;
    const atom = this.schema.resolve(node, v);
    if (atom.kind === 'scalar') this.scalar(atom, v);
    else if (atom.kind === 'list') this.list(atom, v, preserve);
    else this.map(atom, v, preserve || atom.preserveUnknown);
  }

  private child(node: TypeNode, pe: PathElement, v: JsonValue, preserve: boolean): void {
    this.path.push(pe);
    this.visit(node, v, preserve);
    this.path.pop();
  }

  private scalar(atom: ScalarAtom, v: JsonValue): void {
    if (v === null) return;
    switch (atom.type) {
      case 'numeric':
        if (typeof v !== 'number') this.fail(`expected numeric (int or float), got ${goType(v)}`);
        return;
      case 'string':
        if (typeof v !== 'string') this.fail(`expected string, got ${sharpV(v)}`);
        return;
      case 'boolean':
        if (typeof v !== 'boolean') this.fail(`expected boolean, got ${plainV(v)}`);
        return;
      case 'untyped':
        if (isObject(v) || isList(v)) this.fail(`expected any scalar, got ${plainV(v)}`);
    }
  }

  private map(atom: MapAtom, v: JsonValue, preserve: boolean): void {
    if (v === null) return;
    if (!isObject(v)) {
      this.fail(`expected map, got ${plainV(v)}`);
      return;
    }
    for (const key in v) {
      if (!hasOwn.call(v, key)) continue;
      const node = hasOwn.call(atom.fields, key) ? atom.fields[key] : (atom.element ?? (preserve ? DEDUCED : undefined));
      if (node === undefined) {
        this.path.push(fieldElement(key));
        this.fail('field not declared in schema');
        this.path.pop();
        return;
      }
      this.child(node, fieldElement(key), v[key], preserve);
    }
  }

  private list(atom: ListAtom, v: JsonValue, preserve: boolean): void {
    if (v === null) return;
    if (!isList(v)) {
      this.fail(`expected list, got ${plainV(v)}`);
      return;
    }
    if (atom.relationship !== 'associative') {
      for (let i = 0; i < v.length; i++) this.child(atom.element, indexElement(i), v[i], preserve);
      return;
    }
    // Lists up to SCAN_UP_TO items look for a repeated key by scanning the ones before (no set to allocate).
    const seen = v.length > SCAN_UP_TO ? new Set<string>() : undefined;
    const before: PathElement[] = [];
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      const bad = badItem(atom, item);
      let pe: PathElement;
      try {
        if (bad) throw new TypedError([], `element ${i}: ${bad}`);
        pe = listItemElement(atom, i, item, this.path);
      } catch (e) {
        if (!(e instanceof TypedError)) throw e;
        // Without its key an item cannot be located, nor anything after it.
        this.fail(e.detail);
        return;
      }
      if (!this.allowDuplicates && (seen ? seen.has(pe.id) : repeats(before, pe))) this.fail(`duplicate entries for key ${elementToString(pe)}`);
      if (seen) seen.add(pe.id);
      else before.push(pe);
      this.child(atom.element, pe, item, preserve);
    }
  }
}

const SCAN_UP_TO = 32;

function repeats(before: readonly PathElement[], pe: PathElement): boolean {
  for (let j = 0; j < before.length; j++) if (before[j] === pe || before[j].id === pe.id) return true;
  return false;
}

/** Items an associative list cannot hold, in the server's words (key fields are checked by listItemElement). */
function badItem(atom: ListAtom, item: JsonValue): string | undefined {
  if (atom.keys.length > 0) {
    if (item === null) return 'associative list with keys may not have a null element';
    if (!isObject(item)) return 'associative list with keys may not have non-map elements';
    return undefined;
  }
  if (isObject(item)) return "associative list without keys has an element that's a map type";
  if (isList(item)) return 'not supported: associative list with lists as elements';
  if (item === null) return "associative list without keys has an element that's an explicit null";
  return undefined;
}
