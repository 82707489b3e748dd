// Kubernetes regex library: find and findAll (matches is standard CEL).

import { CelError, type CelValue } from '../../common/values';
import { def, type Library } from '../../interpreter/functions';
import { callEstimate } from '../costs';
import { compileRegex } from '../stdlib';

/** The library compiles the pattern itself and reports a bad one in its own words. */
function compile(pattern: string): Exclude<ReturnType<typeof compileRegex>, CelError> | CelError {
  const re = compileRegex(pattern);
  return re instanceof CelError ? new CelError(`Illegal regex: ${re.message}`) : re;
}

function findAll(s: string, pattern: string, limit: number): CelValue {
  const re = compile(pattern);
  if (re instanceof CelError) return re;
  const out: string[] = [];
  if (limit === 0) return out;
  for (const m of re.matchAll(s)) {
    out.push(m[0]);
    if (limit > 0 && out.length >= limit) break;
  }
  return out;
}

export function k8sRegexLibrary(): Library {
  const opts = { cost: callEstimate.regexCost, estimate: callEstimate.estRegex };
  return {
    name: 'k8s.regex',
    overloads: [
      def('string_find_string', 'string.find(string) -> string', (s, p) => {
        const re = compile(p as string);
        if (re instanceof CelError) return re;
        const m = re.exec(s as string);
        return m ? (m[0] as string) : '';
      }, opts),
      def('string_find_all_string', 'string.findAll(string) -> list(string)', (s, p) => findAll(s as string, p as string, -1), opts),
      def('string_find_all_string_int', 'string.findAll(string, int) -> list(string)', (s, p, n) => findAll(s as string, p as string, Number(n as bigint)), opts),
    ],
  };
}
