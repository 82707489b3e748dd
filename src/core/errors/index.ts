/** Kubernetes API errors: Status values and field errors. */
export * from './status';
export * from './fieldErrors';
export * from './goFormat';
