/**
 * The service-worker host. worker.ts is the worker's entry (built on its own);
 * the page imports only the message protocol from here.
 */
export {
  BUILD_ID,
  PROTOCOL_VERSION,
  DATABASE_NAME,
  sendToWorker,
  parseWorkerMessage,
  parseStreamMessage,
  WorkerReplyTimeoutError,
} from './protocol';
export type { PageMessage, WorkerMessage, MessageTarget, StreamMessage } from './protocol';
export { settingsFromUrl, workerUrlWith, type WorkerSettings } from './settings';
