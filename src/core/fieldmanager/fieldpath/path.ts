import { elementToString, type PathElement } from './element';

/** A path from the root of an object to one field or entry. */
export type Path = readonly PathElement[];

export function pathToString(path: Path): string {
  return path.map(elementToString).join('');
}

export function pathEquals(a: Path, b: Path): boolean {
  return a.length === b.length && a.every((pe, i) => pe.id === b[i].id);
}
