/** Field ownership: managedFields as a tree by manager, apply conflicts and their resolutions. */
export { OwnershipPanel } from './OwnershipPanel';
export { managerEntries, ownerTrie, describeOwner, type ManagerEntry, type OwnerTrie } from './fieldOwners';
export { adoptLiveValues, conflictsOf, dropFields, type FieldConflict } from './conflicts';
export { parseFieldPath, valueAt, type PathElement } from './fieldPath';
