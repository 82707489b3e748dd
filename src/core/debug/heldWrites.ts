/**
 * A storage decorator that can hold one write open, for crash tests: armed
 * through `/debug/kubesim/hold-write`, the next create, update or delete of
 * a matching key waits either before reaching the backend (nothing is
 * committed) or after the backend committed it (nothing is acknowledged),
 * until released. A host stopped while a write is held shows what a crash at
 * that point leaves in storage. Unarmed, writes pass straight through.
 */
import type { KeyValue, Storage } from '../storage/interface';

export type HoldPhase = 'before-commit' | 'after-commit';

export interface HeldWriteState {
  /** The hold waiting for a write, if armed. */
  armed?: { phase: HoldPhase; keyPrefix: string };
  /** The key of the write being held now. */
  held?: string;
}

export interface HeldWrites {
  readonly storage: Storage;
  /** Holds the next write of a key under keyPrefix at phase. */
  arm(phase: HoldPhase, keyPrefix: string): void;
  /** Lets a held write (if any) go on, and disarms. */
  release(): void;
  state(): HeldWriteState;
}

export function withHeldWrites(inner: Storage): HeldWrites {
  let armed: HeldWriteState['armed'];
  let held: string | undefined;
  let releaseHeld: (() => void) | undefined;

  // Unarmed, a write is the backend's call itself (no promise of its own).
  function write(key: string, op: () => Promise<KeyValue>): Promise<KeyValue> {
    return !armed || !key.startsWith(armed.keyPrefix) ? op() : hold(key, armed.phase, op);
  }

  async function hold(key: string, phase: HoldPhase, op: () => Promise<KeyValue>): Promise<KeyValue> {
    armed = undefined;
    held = key;
    const gate = new Promise<void>((resolve) => (releaseHeld = resolve));
    try {
      if (phase === 'before-commit') {
        await gate;
        return await op();
      }
      const kv = await op();
      await gate;
      return kv;
    } finally {
      held = undefined;
      releaseHeld = undefined;
    }
  }

  const storage: Storage = {
    currentRevision: () => inner.currentRevision(),
    compactedRevision: () => inner.compactedRevision(),
    revisionNow: inner.revisionNow && (() => inner.revisionNow!()),
    get: (key, revision) => inner.get(key, revision),
    range: (...args) => inner.range(...args),
    create: (key, value) => write(key, () => inner.create(key, value)),
    update: (key, value, expected) => write(key, () => inner.update(key, value, expected)),
    delete: (key, expected) => write(key, () => inner.delete(key, expected)),
    // Every argument passes on, callbacks a backend may add included.
    watch: (...args) => inner.watch(...args),
    compact: (revision) => inner.compact(revision),
    close: () => inner.close(),
  };

  return {
    storage,
    arm(phase, keyPrefix) {
      armed = { phase, keyPrefix };
    },
    release() {
      armed = undefined;
      held = undefined;
      releaseHeld?.();
    },
    state: () => ({ ...(armed ? { armed: { ...armed } } : {}), ...(held ? { held } : {}) }),
  };
}
