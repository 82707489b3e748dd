/**
 * Per-resource behaviour the generic store runs in fixed order
 * (k8s.io/apiserver/pkg/registry/rest RESTCreateStrategy / RESTUpdateStrategy).
 */
import type { KubeObject } from '../../api/types';
import type { FieldError } from '../../errors';
import type { RandomSource } from '../../util/clock';
import type { UserInfo } from '../../auth/user';

export interface StrategyContext {
  now: Date;
  /** The subresource being written ('' for the main resource). */
  subresource: string;
  /** Randomness for allocations (cluster IPs), injected so scenarios replay. */
  random: RandomSource;
  /** The write is a dry run: allocations are checked, then always reverted. */
  dryRun?: boolean;
  /** The requesting user (genericapirequest.UserFrom); undefined for the server's own writes. */
  user?: UserInfo;
  /** Verdicts of the strategy's checkAsync, keyed by what it checked: '' when it passed, else why not. */
  asyncChecks?: Map<string, string>;
}

/** Ends what a begin hook started: success means the write was stored (commit), anything else reverts. */
export type FinishFunc = (success: boolean) => void;

export interface ResourceStrategy {
  /** Whether metadata.generation is maintained (bumped when the spec changes). */
  hasGeneration?: boolean;
  /** Whether PUT of a missing object creates it. */
  allowCreateOnUpdate?: boolean;
  /** Propagation when a DELETE names none (Orphan for ReplicationControllers, else Background). */
  defaultPropagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  /** Whether DELETE answers with the deleted object instead of a Success Status. */
  returnDeletedObject?: boolean;
  /**
   * The scheme's defaulter (runtime.ObjectDefaulter: SetDefaults_<Kind>, and
   * what v1 conversion normalises, such as a Secret's stringData folded into
   * data): what decoding a written object does to it. The handlers run it
   * where kube's codec does, before the field manager, so the writer owns
   * the defaulted fields: on a create or PUT body, on a patched object, on
   * an apply's result. The store runs it again before prepareForCreate and
   * prepareForUpdate for the server's own writes, which are not decoded.
   * Must only fill in what is missing (a second run changes nothing). May mutate obj.
   */
  defaulter?(obj: KubeObject): void;
  /** Clears fields a create may not set (status, ...) after defaulting. May mutate obj. */
  prepareForCreate?(obj: KubeObject, ctx: StrategyContext): void;
  /** Carries over fields a write may not change (status on the main resource, ...). May mutate obj, never old. */
  prepareForUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext): void;
  /** Finalizers kept outside metadata.finalizers that also hold deletion (a namespace's spec.finalizers). */
  deletionFinalizers?(obj: KubeObject): string[];
  /**
   * CheckGracefulDelete (RESTGracefulDeleteStrategy): kinds with graceful deletion return
   * the grace period in seconds for a first delete, given the one requested. Must not mutate.
   */
  checkGracefulDelete?(obj: KubeObject, requestedSeconds: number | undefined): number;
  /** Marks an object whose deletion waits for finalizers (namespace phase Terminating). May mutate obj. */
  prepareForDelete?(obj: KubeObject, ctx: StrategyContext): void;
  /**
   * BeginCreate: allocations a create makes after defaulting and before
   * validation (a Service's ClusterIP and NodePorts). May mutate obj; throws
   * to refuse. The store calls the returned function once the write is decided.
   */
  beginCreate?(obj: KubeObject, ctx: StrategyContext): FinishFunc | undefined;
  /** BeginUpdate: the same for an update of a stored object. */
  beginUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext): FinishFunc | undefined;
  /** AfterDelete: the object is gone from storage; release what it held. */
  afterDelete?(obj: KubeObject, ctx: StrategyContext): void;
  /**
   * Conversion from and to the layout objects are stored in, for a resource
   * one storage serves to two groups (events.k8s.io Events are stored as
   * core/v1 Events). Absent: stored as served.
   */
  fromStorage?(obj: KubeObject): KubeObject;
  toStorage?(obj: KubeObject): KubeObject;
  /**
   * Checks validation needs that only run asynchronously (a CSR's signature,
   * through WebCrypto), run before validation on create (old undefined) and
   * before prepareForUpdate on update; verdicts go in ctx.asyncChecks for
   * validate/validateUpdate to read. Must not mutate.
   */
  checkAsync?(obj: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): Promise<void>;
  /** Kind-specific validation on create. Must not mutate. */
  validate?(obj: KubeObject, ctx: StrategyContext): FieldError[];
  /** Kind-specific validation on update. Must not mutate. */
  validateUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext): FieldError[];
}
