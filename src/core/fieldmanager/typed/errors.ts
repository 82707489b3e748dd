import { pathToString, type Path } from '../fieldpath';

/** A value that does not fit its schema, with the path where it was found. */
export class TypedError extends Error {
  constructor(
    readonly path: Path,
    readonly detail: string,
  ) {
    super(path.length ? `${pathToString(path)}: ${detail}` : detail);
  }
}

/** One place where a value does not fit its schema (`path` printed as `.spec.containers[name="a"]`). */
export interface ValidationError {
  readonly path: string;
  readonly message: string;
}

/**
 * What typing a value against its schema found wrong, printed as
 * structured-merge-diff prints ValidationErrors: one error alone, several
 * under `errors:`, one per indented line.
 */
export class ValidationErrors extends Error {
  constructor(readonly errors: readonly ValidationError[]) {
    super(validationErrorsText(errors));
  }
}

function validationErrorsText(errors: readonly ValidationError[]): string {
  const one = (e: ValidationError) => (e.path ? `${e.path}: ${e.message}` : e.message);
  if (errors.length === 1) return one(errors[0]);
  return ['errors:', ...errors.map((e) => `  ${one(e)}`)].join('\n');
}
