/**
 * Dot segments in the raw request target. The WHATWG URL parser behind every
 * Request drops `.` and `..` (also percent-encoded) before the core sees the
 * path, so `DELETE /api/v1/namespaces/x/configmaps/..` would reach namespace
 * x itself. Go keeps the path as sent: kube-apiserver takes the segment as the
 * object's name and its key function refuses it (NamespaceKeyFunc:
 * `Name parameter invalid: "..": may not be '..'`). The Node host refuses such
 * a target the same way before it builds the Request.
 */
import { newBadRequest } from '../src/core/errors';
import { writeError } from '../src/core/http/responseWriter';

/** The first `.` or `..` segment of the target's path, decoded; undefined when there is none. */
export function dotSegment(target: string): string | undefined {
  // A dot segment starts the target or follows a slash, as `.` or an escape (`%2e`): most targets have neither.
  if (!target.includes('/.') && !target.includes('%') && !target.startsWith('.')) return undefined;
  const path = target.split(/[?#]/, 1)[0]!;
  for (const raw of path.split('/')) {
    let segment = raw;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      // A malformed escape is no dot segment.
    }
    if (segment === '.' || segment === '..') return segment;
  }
  return undefined;
}

/** 400 BadRequest for a target with a dot segment, or undefined when the target is clean. */
export function rejectDotSegment(target: string | undefined): Response | undefined {
  const segment = target === undefined ? undefined : dotSegment(target);
  if (segment === undefined) return undefined;
  return writeError(newBadRequest(`Name parameter invalid: ${JSON.stringify(segment)}: may not be '${segment}'`));
}
