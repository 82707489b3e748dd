/**
 * Container image references as the kubelet and containerd parse them
 * (distribution/reference's ParseNormalizedNamed): an optional registry
 * host (with a port), a lowercase repository path, an optional tag and an
 * optional digest. A bare name is on docker.io under `library/`.
 */

export interface ImageReference {
  /** The registry host, `docker.io` by default. */
  domain: string;
  /** The repository path within it, `library/nginx` for `nginx`. */
  path: string;
  tag?: string;
  digest?: string;
}

export type ParsedReference = { ref: ImageReference } | { error: string };

const alnum = '[a-z0-9]+';
const separator = '(?:[._]|__|[-]+)';
const pathComponent = `${alnum}(?:${separator}${alnum})*`;
const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const domain = `(?:${domainComponent}(?:\\.${domainComponent})*|\\[[0-9a-fA-F:]+\\])(?::[0-9]+)?`;
const tag = '[\\w][\\w.-]{0,127}';
const digest = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
/** ReferenceRegexp: name (with an optional domain), `:tag`, `@digest`. */
const referenceRe = new RegExp(`^((?:${domain}/)?${pathComponent}(?:/${pathComponent})*)(?::(${tag}))?(?:@(${digest}))?$`);

/** splitDockerDomain: the first component is a host when it has a `.` or `:`, is localhost, or is not lowercase. */
function splitDomain(name: string): [string, string] {
  const i = name.indexOf('/');
  const first = name.slice(0, i);
  let host = 'docker.io';
  let rest = name;
  if (i >= 0 && (/[.:]/.test(first) || first === 'localhost' || first.toLowerCase() !== first)) {
    host = first === 'index.docker.io' ? 'docker.io' : first;
    rest = name.slice(i + 1);
  }
  return [host, host === 'docker.io' && !rest.includes('/') ? `library/${rest}` : rest];
}

/** ParseNormalizedNamed: the reference, or the error the kubelet puts in its message. */
export function parseImageReference(image: string): ParsedReference {
  if (/^[a-f0-9]{64}$/.test(image)) return { error: `invalid repository name (${image}), cannot specify 64-byte hexadecimal strings` };
  const [host, remainder] = splitDomain(image);
  const remoteName = remainder.split(':')[0]!;
  if (remoteName.toLowerCase() !== remoteName) return { error: `invalid reference format: repository name (${remoteName}) must be lowercase` };
  const m = referenceRe.exec(`${host}/${remainder}`);
  if (!m) return { error: 'invalid reference format' };
  const [, name, t, d] = m as unknown as [string, string, string | undefined, string | undefined];
  if (name.length > 255) return { error: 'invalid reference format: repository name must not be more than 255 characters' };
  if (d?.startsWith('sha256:') && d.length !== 'sha256:'.length + 64) return { error: 'invalid checksum digest length' };
  return { ref: { domain: host, path: name.slice(host.length + 1), ...(t !== undefined ? { tag: t } : {}), ...(d !== undefined ? { digest: d } : {}) } };
}

/** The reference as containerd names it: `docker.io/library/nginx:latest` for `nginx`. */
export function fullReference(ref: ImageReference): string {
  const tagged = ref.tag ?? (ref.digest ? undefined : 'latest');
  return `${ref.domain}/${ref.path}${tagged !== undefined ? `:${tagged}` : ''}${ref.digest ? `@${ref.digest}` : ''}`;
}

/** applyDefaultImageTag's error, as the kubelet reports an image it cannot parse; undefined when it parses. */
export function invalidImageMessage(image: string): string | undefined {
  const parsed = parseImageReference(image);
  if ('ref' in parsed) return undefined;
  return `Failed to apply default image tag "${image}": couldn't parse image name "${image}": ${parsed.error}`;
}
