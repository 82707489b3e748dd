/**
 * A selector that cannot be parsed or converted. Returned as a value, never
 * thrown; the request handler turns `message` into a 400 BadRequest Status,
 * exactly as kube-apiserver wraps the parse error of a list or watch.
 */
export class SelectorError {
  readonly reason = 'BadRequest' as const;
  constructor(readonly message: string) {}
}

export function isSelectorError(value: unknown): value is SelectorError {
  return value instanceof SelectorError;
}
