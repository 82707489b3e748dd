/** Widgets shared by the workbench's features. */
export { StatusError } from './StatusError';
export { formatAge } from './age';
