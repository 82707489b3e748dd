// CEL function libraries: the standard definitions, the cel-go extensions
// Kubernetes enables, and Kubernetes' own libraries.

import type { Library } from '../interpreter/functions';
import { comprehensionsLibrary, encodersLibrary, listsExtLibrary, mathLibrary, setsLibrary, stringsLibrary } from './ext';

/** Every extension cel-go ships (used by the conformance runner and the plain environment). */
export function extensionLibraries(): Library[] {
  return [stringsLibrary({ version: 4 }), listsExtLibrary(), setsLibrary(), comprehensionsLibrary(), mathLibrary(), encodersLibrary()];
}

export { comprehensionsLibrary, encodersLibrary, listsExtLibrary, mathLibrary, setsLibrary, stringsLibrary };
