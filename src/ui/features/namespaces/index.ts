/** Namespaces: the sidebar list, its query, and the selected namespace slice. */
export { NamespaceList } from './NamespaceList';
export { NAMESPACES, useNamespaces } from './useNamespaces';
export { createNamespacesSlice, type NamespacesSlice } from './namespacesSlice';
