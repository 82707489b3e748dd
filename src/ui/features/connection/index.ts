/** The page's connection to the service-worker host: the gate shown until it controls the page, and its slice. */
export { ServiceWorkerGate } from './ServiceWorkerGate';
export { createConnectionSlice, type Connection, type ConnectionSlice } from './connectionSlice';
