/** The errors a webhook's answer becomes (admission/plugin/webhook/errors). */
import { newBadRequest, StatusError, type Status, type StatusReason } from '../../errors';

/** ToStatusErr: a denial, at least a 400 Failure, its message prefixed with who denied it. */
export function toStatusErr(webhookName: string, result: Record<string, unknown> | undefined): StatusError {
  const deniedBy = `admission webhook "${webhookName}" denied the request`;
  const r = result ?? {};
  const code = typeof r['code'] === 'number' && r['code'] >= 400 ? r['code'] : 400;
  const message = typeof r['message'] === 'string' ? r['message'] : '';
  const reason = (typeof r['reason'] === 'string' ? r['reason'] : '') as StatusReason;
  const status: Status = {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: message ? `${deniedBy}: ${message}` : reason ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`,
    ...(reason ? { reason } : {}),
    ...(r['details'] && typeof r['details'] === 'object' ? { details: r['details'] as Status['details'] } : {}),
    code,
  };
  return new StatusError(status);
}

/** NewDryRunUnsupportedErr: a dry run would reach a webhook that may have side effects. */
export function dryRunUnsupported(webhookName: string): StatusError {
  return newBadRequest(`admission webhook "${webhookName}" does not support dry run`);
}
