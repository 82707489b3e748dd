/** Signer names of CSRs and trust bundles (ValidateSignerName): a domain, a slash, then a path of DNS subdomains. */
import { invalid, required, tooLong, type FieldError } from '../../errors';
import type { Path } from '../field';
import { isDNS1123Label, isDNS1123Subdomain } from '../names';

export function validateSignerName(fld: Path, signer: string): FieldError[] {
  if (!signer) return [required(String(fld))];
  const segments = signer.split('/');
  if (segments.length !== 2) return [invalid(String(fld), signer, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain, path] = segments as [string, string];
  const errs: FieldError[] = [];
  if (domain.length > 253) errs.push(tooLong(String(fld), domain, 253));
  const labels = domain.split('.');
  for (const lbl of labels) {
    const msgs = isDNS1123Label(lbl);
    if (msgs.length) {
      for (const m of msgs) errs.push(invalid(String(fld), domain, `validating label "${lbl}": ${m}`));
      break;
    }
  }
  if (labels.length < 2) errs.push(invalid(String(fld), domain, 'should be a domain with at least two segments separated by dots'));
  for (const lbl of path.split('.')) {
    const msgs = isDNS1123Subdomain(lbl);
    if (msgs.length) {
      for (const m of msgs) errs.push(invalid(String(fld), path, `validating component "${lbl}": ${m}`));
      break;
    }
  }
  if (path.length > 253 + 63 + 1) errs.push(tooLong(String(fld), path, 253 + 63 + 1));
  return errs;
}
