/** The manifest editor: parsing, the writes (create, replace, apply), the schema from OpenAPI, and its slice. */
export { EditorPanel, MANIFEST_MODEL } from './EditorPanel';
export { useWrite, type Written } from './useWrite';
export { describeCreated, describeWritten, kubectlType, parseManifest, resolveTarget, writePath, type CreateTarget, type Parsed } from './manifest';
export { EXAMPLE_MANIFEST, FIELD_MANAGER, createEditorSlice, type ApplyConflict, type EditorSlice, type FieldValidation } from './editorSlice';
