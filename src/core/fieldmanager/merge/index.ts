/**
 * Package merge: the updater that computes field ownership for Update and
 * Apply operations, and the conflicts an apply can run into. Imports typed.
 */
export * from './conflict';
export * from './update';
