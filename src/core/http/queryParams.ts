/**
 * Query parameters as kube-apiserver's parameter codec converts them into
 * option structs (k8s.io/apimachinery/pkg/runtime Convert_Slice_string_To_bool
 * and Convert_Slice_string_To_Pointer_bool): only the first value counts, and
 * only `0` or `false` in any case is false. Anything else, even an empty
 * value (`?watch`), `True` (what the Python client sends) or `yes`, is true.
 */

const noQuery = new URLSearchParams();

/**
 * The URL's query parameters, or a shared empty set when it has none: most
 * requests carry no query, and URL.searchParams builds its object on first use.
 * Callers only read it.
 */
export function queryOf(url: URL): URLSearchParams {
  return url.search === '' ? noQuery : url.searchParams;
}

/** A query value as a boolean option: false only for `0` and `false` (any case). */
export function queryBool(value: string): boolean {
  return value !== '0' && value.toLowerCase() !== 'false';
}

/** A `bool` option: absent is false. */
export function boolParam(query: URLSearchParams, name: string): boolean {
  return optionalBoolParam(query, name) ?? false;
}

/** A `*bool` option: absent is undefined (nil), present decodes as queryBool. */
export function optionalBoolParam(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name);
  return value === null ? undefined : queryBool(value);
}
