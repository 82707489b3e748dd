/**
 * The kubelet's image manager (EnsureImageExists) for simulated nodes: a
 * reference that does not parse is `InvalidImageName`; a published image is
 * present on every node (`Pulled`: already present, or pulled again under
 * imagePullPolicy Always); a tag a catalog repository does not publish is
 * not, so Never gives `ErrImageNeverPull` and a pull fails as containerd
 * reports it (`ErrImagePull`), then waits out the pull back-off (10s doubling
 * to 5 minutes per pod and image, `ImagePullBackOff`). Images of repositories
 * kubesim does not know are pulled fine.
 */
import { fullReference, invalidImageMessage, parseImageReference } from './imageReference';
import { unpublishedTag } from './imageCatalog';

/** An event as [type, reason, message], recorded on the container's field. */
export type PullEvent = ['Normal' | 'Warning', string, string];

export interface PullResult {
  events: PullEvent[];
  /** Why the container cannot be created: its waiting state. */
  waiting?: { reason: 'InvalidImageName' | 'ErrImageNeverPull' | 'ErrImagePull' | 'ImagePullBackOff'; message: string };
  /** When the kubelet syncs the pod again to retry (its pod worker's back-off). */
  retryAt?: number;
}

export interface ImagePuller {
  /** The image of a container about to be created, as of nowMs. */
  ensure(podUID: string, container: Record<string, unknown>, nowMs: number): PullResult;
  /** The pod is gone: its back-offs with it. */
  forgetPod(podUID: string): void;
}

const initialBackOffMs = 10_000;
const maxBackOffMs = 300_000;
/** The pod worker's back-off before it syncs a pod whose sync failed again. */
const resyncMs = 10_000;

export function newImagePuller(): ImagePuller {
  /** flowcontrol.Backoff entries by `<pod uid>_<image>`, with the error kept for the back-off message. */
  const backOffs = new Map<string, { durationMs: number; lastUpdate: number; error: string }>();
  /**
   * The last failure per `<pod uid>_<image>` and until when it stands: the pod worker syncs a pod whose sync
   * failed again only after its back-off (a status write does not make it look sooner); an invalid name or
   * an image Never pulled stands as long as the container names that image.
   */
  const failures = new Map<string, { until: number; result: PullResult }>();
  return {
    ensure(podUID, container, nowMs) {
      const key = `${podUID}_${String(container['image'] ?? '')}`;
      const last = failures.get(key);
      if (last && nowMs < last.until) return { ...last.result, events: [] };
      const result = look(key, container, nowMs);
      if (result.waiting) failures.set(key, { until: result.retryAt ?? Infinity, result });
      else failures.delete(key);
      return result;
    },
    forgetPod(podUID) {
      for (const map of [backOffs, failures]) for (const key of map.keys()) if (key.startsWith(`${podUID}_`)) map.delete(key);
    },
  };

  function look(key: string, container: Record<string, unknown>, nowMs: number): PullResult {
    const image = String(container['image'] ?? '');
    const failed = (reason: NonNullable<PullResult['waiting']>['reason'], events: PullEvent[], message: string, retry: boolean): PullResult => ({
      events: [...events, ['Warning', 'Failed', `Error: ${reason}`]],
      waiting: { reason, message },
      ...(retry ? { retryAt: nowMs + resyncMs } : {}),
    });
    const invalid = invalidImageMessage(image);
    if (invalid !== undefined) return failed('InvalidImageName', [['Warning', 'InspectFailed', invalid]], invalid, false);
    const parsed = parseImageReference(image);
    const present = !('ref' in parsed) || !unpublishedTag(parsed.ref);
    const policy = String(container['imagePullPolicy'] ?? 'IfNotPresent');
    if (present && policy !== 'Always') return { events: [['Normal', 'Pulled', `Container image "${image}" already present on machine`]] };
    if (policy === 'Never') {
      const message = `Container image "${image}" is not present with pull policy of Never`;
      return failed('ErrImageNeverPull', [['Warning', 'ErrImageNeverPull', message]], message, false);
    }
    const entry = backOffs.get(key);
    if (entry && nowMs - entry.lastUpdate < entry.durationMs) {
      const message = `Back-off pulling image "${image}"`;
      return failed('ImagePullBackOff', [['Normal', 'BackOff', message]], `${message}: ErrImagePull: ${entry.error}`, true);
    }
    if (present) {
      backOffs.delete(key);
      return { events: [['Normal', 'Pulling', `Pulling image "${image}"`], ['Normal', 'Pulled', `Successfully pulled image "${image}" in 0s (0s including waiting)`]] };
    }
    const full = 'ref' in parsed ? fullReference(parsed.ref) : image;
    const error = `rpc error: code = NotFound desc = failed to pull and unpack image "${full}": failed to resolve reference "${full}": ${full}: not found`;
    // Backoff.Next: the first failure (or one long after the last) waits 10s, each next one twice as long.
    const durationMs = !entry || nowMs - entry.lastUpdate > 2 * maxBackOffMs ? initialBackOffMs : Math.min(entry.durationMs * 2, maxBackOffMs);
    backOffs.set(key, { durationMs, lastUpdate: nowMs, error });
    return failed('ErrImagePull', [['Normal', 'Pulling', `Pulling image "${image}"`], ['Warning', 'Failed', `Failed to pull image "${image}": ${error}`]], error, true);
  }
}
