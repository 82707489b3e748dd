/**
 * Storage backends bound to the Node host: SQLite (one durable file, the
 * embedded default, like k3s's kine). The host hands the backend to the core;
 * the core never imports this folder.
 */
export { createSqliteStorage, type SqliteStorageOptions } from './sqlite';
export { defaultMaxRequestBytes, withMaxRequestBytes } from './requestLimit';
