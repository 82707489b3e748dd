// Monaco's contribution modules ship without declarations; they are imported for their side effects only.
declare module 'monaco-editor/editor/contrib/*';
declare module 'monaco-editor/editor/browser/coreCommands.js';
declare module 'monaco-editor/editor/common/standaloneStrings.js';
