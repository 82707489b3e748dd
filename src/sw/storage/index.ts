/**
 * Storage backends bound to the service-worker host: IndexedDB (objects plus
 * an event log, so a restarted worker keeps its revision and watch history).
 * The worker hands the backend to the core; the core never imports this folder.
 */
export { createIndexedDbStorage, type IndexedDbStorageOptions } from './indexeddb';
