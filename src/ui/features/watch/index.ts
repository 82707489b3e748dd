/** Watch stepping: the session (pure), the stream hook, and the panel. */
export { WatchPanel } from './WatchPanel';
export { diffLines, objectText, sessionReducer, watchQuery, EMPTY_SESSION, DEFAULT_WATCH_PARAMS, type WatchParams, type WatchSession } from './session';
