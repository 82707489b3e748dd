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
