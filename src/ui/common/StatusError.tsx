/** Shows an API failure whole: code, reason, message and each cause with its field. */
import { isApiError } from '../api';

export function StatusError({ error, testId }: { error: unknown; testId?: string }) {
  if (!isApiError(error)) {
    return (
      <div className="status-error" role="alert" data-testid={testId}>
        <p className="status-message">{error instanceof Error ? error.message : String(error)}</p>
      </div>
    );
  }
  const { status } = error;
  const causes = status.details?.causes ?? [];
  return (
    <div className="status-error" role="alert" data-testid={testId} data-reason={status.reason}>
      <p className="status-head">
        <span className="status-code">{status.code || 'no response'}</span> <span className="status-reason">{status.reason ?? 'Unknown'}</span>
      </p>
      <p className="status-message">{status.message}</p>
      {causes.length > 0 && (
        <ul className="status-causes">
          {causes.map((cause, i) => (
            <li key={i}>
              {cause.field && <code>{cause.field}</code>} {cause.reason && <span className="status-reason">{cause.reason}</span>}{' '}
              {cause.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
