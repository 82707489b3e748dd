/** Create from YAML: manifest parsing, the create mutation, the editor form and its draft slice. */
export { CreateFromYaml } from './CreateFromYaml';
export { FIELD_MANAGER, useCreateObject, type Created } from './useCreateObject';
export { describeCreated, parseManifest, resolveTarget, type CreateTarget, type Parsed } from './manifest';
export { EXAMPLE_MANIFEST, createCreateSlice, type CreateSlice } from './createSlice';
