import { describe, expect, it } from 'vitest';
import { newImagePuller } from './imagePull';

const notFound = 'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:1.999": failed to resolve reference "docker.io/library/nginx:1.999": docker.io/library/nginx:1.999: not found';

describe('the image manager', () => {
  it('a published image is present; Always pulls it again', () => {
    const p = newImagePuller();
    expect(p.ensure('u', { image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }, 0)).toEqual({ events: [['Normal', 'Pulled', 'Container image "nginx:1.27" already present on machine']] });
    expect(p.ensure('u', { image: 'nginx', imagePullPolicy: 'Always' }, 0)).toEqual({ events: [['Normal', 'Pulling', 'Pulling image "nginx"'], ['Normal', 'Pulled', 'Successfully pulled image "nginx" in 0s (0s including waiting)']] });
    expect(p.ensure('u', { image: 'example.com/app:v1', imagePullPolicy: 'Never' }, 0).waiting).toBeUndefined();
  });

  it('an invalid reference: InvalidImageName, InspectFailed', () => {
    const msg = 'Failed to apply default image tag "nginx:": couldn\'t parse image name "nginx:": invalid reference format';
    expect(newImagePuller().ensure('u', { image: 'nginx:', imagePullPolicy: 'IfNotPresent' }, 0)).toEqual({
      events: [['Warning', 'InspectFailed', msg], ['Warning', 'Failed', 'Error: InvalidImageName']],
      waiting: { reason: 'InvalidImageName', message: msg },
    });
  });

  it('Never with an image not present: ErrImageNeverPull', () => {
    const msg = 'Container image "nginx:1.999" is not present with pull policy of Never';
    expect(newImagePuller().ensure('u', { image: 'nginx:1.999', imagePullPolicy: 'Never' }, 0)).toEqual({
      events: [['Warning', 'ErrImageNeverPull', msg], ['Warning', 'Failed', 'Error: ErrImageNeverPull']],
      waiting: { reason: 'ErrImageNeverPull', message: msg },
    });
  });

  it('an unpublished tag: ErrImagePull, then ImagePullBackOff for 10s, 20s, 40s... as flowcontrol.Backoff, looked at when the pod worker syncs again (every 10s)', () => {
    const p = newImagePuller();
    const c = { image: 'nginx:1.999', imagePullPolicy: 'IfNotPresent' };
    expect(p.ensure('u', c, 0)).toEqual({
      events: [['Normal', 'Pulling', 'Pulling image "nginx:1.999"'], ['Warning', 'Failed', `Failed to pull image "nginx:1.999": ${notFound}`], ['Warning', 'Failed', 'Error: ErrImagePull']],
      waiting: { reason: 'ErrImagePull', message: notFound },
      retryAt: 10_000,
    });
    // A sync before the pod worker's back-off (a status write) changes nothing and records nothing.
    expect(p.ensure('u', c, 5_000)).toEqual({ events: [], waiting: { reason: 'ErrImagePull', message: notFound }, retryAt: 10_000 });
    // 10s on, the pull back-off (10s) is over: it pulls again, now backing off 20s.
    expect(p.ensure('u', c, 10_000).waiting?.reason).toBe('ErrImagePull');
    expect(p.ensure('u', c, 20_000)).toEqual({
      events: [['Normal', 'BackOff', 'Back-off pulling image "nginx:1.999"'], ['Warning', 'Failed', 'Error: ImagePullBackOff']],
      waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "nginx:1.999": ErrImagePull: ${notFound}` },
      retryAt: 30_000,
    });
    expect(p.ensure('u', c, 30_000).waiting?.reason).toBe('ErrImagePull');
    expect(p.ensure('u', c, 40_000).waiting?.reason).toBe('ImagePullBackOff');
    expect(p.ensure('u', c, 60_000).waiting?.reason).toBe('ImagePullBackOff');
    expect(p.ensure('u', c, 70_000).waiting?.reason).toBe('ErrImagePull');
    // Another pod has its own back-off; a pod gone takes its own with it.
    expect(p.ensure('v', c, 70_000).waiting?.reason).toBe('ErrImagePull');
    p.forgetPod('u');
    expect(p.ensure('u', c, 70_001).waiting?.reason).toBe('ErrImagePull');
  });
});
