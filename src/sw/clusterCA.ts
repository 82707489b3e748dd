/**
 * The service worker's cluster signing CA, the counterpart of the Node
 * host's --data-dir/pki/ca.crt and ca.key: generated on the worker's first
 * start and kept in an IndexedDB database of its own (apart from the cluster
 * store, so resetting the cluster keeps it), so certificates the csrsigning
 * controller issued stay verifiable across worker restarts.
 */
import { openDB } from 'idb';
import { generateClusterCA, type ClusterSigningCA } from '../core';

export const PKI_DATABASE_NAME = 'kubesim-pki';
const caKey = 'cluster-ca';

/** The stored CA, or a new one stored first. Two workers starting at once keep whichever was stored first. */
export async function ensureClusterCA(dbName = PKI_DATABASE_NAME, now = new Date()): Promise<ClusterSigningCA> {
  const db = await openDB(dbName, 1, { upgrade: (database) => void database.createObjectStore('pki') });
  try {
    const stored = (await db.get('pki', caKey)) as ClusterSigningCA | undefined;
    if (stored) return stored;
    const ca = await generateClusterCA(now);
    const tx = db.transaction('pki', 'readwrite');
    const raced = (await tx.store.get(caKey)) as ClusterSigningCA | undefined;
    if (!raced) await tx.store.put(ca, caKey);
    await tx.done;
    return raced ?? ca;
  } finally {
    db.close();
  }
}
