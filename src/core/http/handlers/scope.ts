/** What every resource handler receives: the request, its attributes, and the resource's store. */
import type { Store } from '../../registry/generic/store';
import type { ResourceType } from '../../registry/types';
import type { FeatureGates } from '../../features';
import type { Clock, RandomSource } from '../../util/clock';
import type { RequestInfo } from '../requestInfo';
import type { Authorizer } from '../../auth/authorizer/types';

export interface RequestScope {
  request: Request;
  url: URL;
  info: RequestInfo;
  /** The resource type named by the URL (its version is the requested one). */
  type: ResourceType;
  store: Store;
  clock: Clock;
  gates: FeatureGates;
  /** Injected randomness (watch timeouts), so scenarios replay. */
  random: RandomSource;
  /** Warnings to send back as `Warning: 299` headers. */
  warnings: string[];
  /** Counts `count` (default 1) watch events of this many bytes each (apiserver_watch_events_total / _sizes). */
  watchEventSent?: (bytes: number, count?: number) => void;
  /** The server's authorizer, for checks beyond the request's own verb (the unsafe delete's second verb). */
  authorizer?: Authorizer;
}
