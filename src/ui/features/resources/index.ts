/** Resources: discovery of kinds, the kind selector, and the list of objects of one kind. */
export { KindSelect } from './KindSelect';
export { ResourceTable } from './ResourceTable';
export { ObjectDetail } from './ObjectDetail';
export { LabelSelectorInput } from './LabelSelectorInput';
export { applyManifestOf, withoutManagedFields } from './objectYaml';
export { useResourceKinds, useSelectedKind, type ResourceKinds } from './useResourceKinds';
export { useResourceList } from './useResourceList';
export { createResourcesSlice, type ObjectRef, type ResourcesSlice } from './resourcesSlice';
