/**
 * Calling one admission webhook (k8s.io/apiserver/pkg/util/webhook and
 * admission/plugin/webhook/generic): the clientConfig resolves to a URL
 * (`url`, or `https://<name>.<namespace>.svc:<port><path>` for `service`),
 * the review is POSTed with `?timeout=<n>s`, and every failure to get an
 * answer is an ErrCallingWebhook, which failurePolicy may ignore.
 */

/** One POST of an AdmissionReview; the host's transport verifies TLS against caBundle. */
export interface WebhookCall {
  url: string;
  /** PEM CA bundle (decoded clientConfig.caBundle); the system roots when absent. */
  caBundle?: string;
  /** TLS server name for service references (`<name>.<namespace>.svc`). */
  serverName?: string;
  body: string;
  signal: AbortSignal;
}

export interface WebhookAnswer {
  status: number;
  body: string;
}

/**
 * Sends one call; rejects with Go's wording of what went wrong on the wire
 * (`dial tcp 127.0.0.1:1: connect: connection refused`, `x509: ...`).
 */
export type AdmissionWebhookTransport = (call: WebhookCall) => Promise<WebhookAnswer>;

/** The clientConfig of a webhook (admissionregistration.k8s.io/v1 WebhookClientConfig). */
export interface WebhookClientConfig {
  url?: string;
  service?: { namespace?: string; name?: string; path?: string; port?: number };
  caBundle?: string;
}

/** webhookutil.ErrCallingWebhook: no usable answer; failurePolicy Ignore lets the request through. */
export class ErrCallingWebhook extends Error {
  /** `code`: the answer's HTTP status, when there was one. */
  constructor(readonly webhookName: string, readonly reason: string, readonly code = 0) {
    super(`failed calling webhook "${webhookName}": ${reason}`);
  }
}

/**
 * Where the webhook is reached, spelled as Go prints it (an explicit :443
 * stays). No pod network backs `service` references: the host resolves the
 * name or fails.
 */
export function webhookURL(config: WebhookClientConfig): { url: string; serverName?: string } {
  if (config.url) {
    // Throws on a URL that does not parse: the client for it cannot be made.
    new URL(config.url);
    return { url: config.url };
  }
  const svc = config.service ?? {};
  const host = `${svc.name ?? ''}.${svc.namespace ?? ''}.svc`;
  return { url: `https://${host}:${svc.port ?? 443}${svc.path ?? ''}`, serverName: host };
}

function decodeCABundle(b64: string | undefined): string | undefined {
  if (!b64) return undefined;
  try {
    return atob(b64);
  } catch {
    return undefined;
  }
}

/** What client-go's rest client says of a non-2xx answer: a Status body's message, else its wording for the code. */
function unstructuredError(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { kind?: unknown; message?: unknown };
    if (parsed.kind === 'Status' && typeof parsed.message === 'string' && parsed.message) return parsed.message;
  } catch {
    // Not JSON: the code's wording.
  }
  const known: Record<number, string> = {
    400: 'the server rejected our request for an unknown reason',
    401: 'the server has asked for the client to provide credentials',
    403: 'the server does not allow access to the requested resource',
    404: 'the server could not find the requested resource',
    405: 'the server does not allow this method on the requested resource',
    409: 'the server reported a conflict',
    429: 'the server has received too many requests and has asked us to try again later',
    504: 'the server was unable to return a response in the time allotted, but may still be processing the request',
  };
  const text = known[status];
  if (text) return text;
  return `an error on the server ("${body.trim() || 'unknown'}") has prevented the request from succeeding`;
}

/** The default transport: the runtime's fetch (it cannot pin caBundle; hosts inject one that does). */
export const fetchTransport: AdmissionWebhookTransport = async (call) => {
  const res = await fetch(call.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: call.body, signal: call.signal });
  return { status: res.status, body: await res.text() };
};

/**
 * POSTs the review to the webhook within timeoutSeconds and returns the
 * parsed answer; throws ErrCallingWebhook for anything but a 2xx JSON body.
 */
export async function callWebhook(transport: AdmissionWebhookTransport, name: string, config: WebhookClientConfig, review: unknown, timeoutSeconds: number): Promise<unknown> {
  let target: { url: string; serverName?: string };
  try {
    target = webhookURL(config);
  } catch (e) {
    throw new ErrCallingWebhook(name, `failed to get client for webhook: ${e instanceof Error ? e.message : String(e)}`);
  }
  const url = `${target.url}${target.url.includes('?') ? '&' : '?'}timeout=${timeoutSeconds}s`;
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, timeoutSeconds * 1000);
  let answer: WebhookAnswer;
  try {
    answer = await transport({ url, caBundle: decodeCABundle(config.caBundle), serverName: target.serverName, body: JSON.stringify(review), signal: abort.signal });
  } catch (e) {
    const why = timedOut ? 'context deadline exceeded' : e instanceof Error ? e.message : String(e);
    throw new ErrCallingWebhook(name, `failed to call webhook: Post "${url}": ${why}`);
  } finally {
    clearTimeout(timer);
  }
  if (answer.status < 200 || answer.status > 299) throw new ErrCallingWebhook(name, `failed to call webhook: ${unstructuredError(answer.status, answer.body)}`, answer.status);
  try {
    return JSON.parse(answer.body) as unknown;
  } catch (e) {
    throw new ErrCallingWebhook(name, `failed to call webhook: ${e instanceof Error ? e.message : String(e)}`, answer.status);
  }
}
