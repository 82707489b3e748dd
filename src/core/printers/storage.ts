/**
 * storage.k8s.io kinds: storage classes, CSI drivers, CSI nodes, CSI storage
 * capacities, volume attachments and volume attributes classes.
 */

import { ageColumn, column, doc, nameColumn } from './columns';
import { timestampSince } from './duration';
import { arr, field, str } from './format';
import { formatQuantity } from './quantity';
import type { KubeObject, Printer } from './types';

const name = (obj: KubeObject): string => str(obj.metadata?.name);
const age = (obj: KubeObject, now: Date): string => timestampSince(obj.metadata?.creationTimestamp, now);

const DEFAULT_CLASS_ANNOTATIONS = [
  'storageclass.kubernetes.io/is-default-class',
  'storageclass.beta.kubernetes.io/is-default-class',
];

export const storageClassPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Provisioner', 'string', doc('storage.v1.StorageClass.provisioner')),
    column('ReclaimPolicy', 'string', doc('storage.v1.StorageClass.reclaimPolicy')),
    column('VolumeBindingMode', 'string', doc('storage.v1.StorageClass.volumeBindingMode')),
    column('AllowVolumeExpansion', 'string', doc('storage.v1.StorageClass.allowVolumeExpansion')),
    ageColumn(),
  ],
  row(obj, { now }) {
    const annotations = obj.metadata?.annotations ?? {};
    const isDefault = DEFAULT_CLASS_ANNOTATIONS.some((a) => annotations[a] === 'true');
    const reclaimPolicy = obj.reclaimPolicy;
    const bindingMode = obj.volumeBindingMode;
    return {
      cells: [
        isDefault ? `${name(obj)} (default)` : name(obj),
        str(obj.provisioner),
        typeof reclaimPolicy === 'string' ? reclaimPolicy : 'Delete',
        typeof bindingMode === 'string' ? bindingMode : 'Immediate',
        obj.allowVolumeExpansion === true,
        age(obj, now),
      ],
    };
  },
};

export const volumeAttributesClassPrinter: Printer = {
  columns: [
    nameColumn(),
    column('DriverName', 'string', doc('storage.v1.VolumeAttributesClass.driverName')),
    ageColumn(),
  ],
  row(obj, { now }) {
    return { cells: [name(obj), str(obj.driverName), age(obj, now)] };
  },
};

export const volumeAttachmentPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Attacher', 'string', doc('storage.v1.VolumeAttachmentSpec.attacher'), { format: 'name' }),
    column('PV', 'string', doc('storage.v1.VolumeAttachmentSource.persistentVolumeName')),
    column('Node', 'string', doc('storage.v1.VolumeAttachmentSpec.nodeName')),
    column('Attached', 'boolean', doc('storage.v1.VolumeAttachmentStatus.attached')),
    ageColumn(),
  ],
  row(obj, { now }) {
    return {
      cells: [
        name(obj),
        str(field(obj, 'spec', 'attacher')),
        str(field(obj, 'spec', 'source', 'persistentVolumeName')),
        str(field(obj, 'spec', 'nodeName')),
        field(obj, 'status', 'attached') === true,
        age(obj, now),
      ],
    };
  },
};

export const csiNodePrinter: Printer = {
  columns: [
    nameColumn(),
    column('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node'),
    ageColumn(),
  ],
  row(obj, { now }) {
    return { cells: [name(obj), arr(field(obj, 'spec', 'drivers')).length, age(obj, now)] };
  },
};

export const csiDriverPrinter: Printer = {
  columns: [
    nameColumn(),
    column('AttachRequired', 'boolean', doc('storage.v1.CSIDriverSpec.attachRequired')),
    column('PodInfoOnMount', 'boolean', doc('storage.v1.CSIDriverSpec.podInfoOnMount')),
    column('StorageCapacity', 'boolean', doc('storage.v1.CSIDriverSpec.storageCapacity')),
    column('TokenRequests', 'string', doc('storage.v1.CSIDriverSpec.tokenRequests')),
    column('RequiresRepublish', 'boolean', doc('storage.v1.CSIDriverSpec.requiresRepublish')),
    column('Modes', 'string', doc('storage.v1.CSIDriverSpec.volumeLifecycleModes')),
    ageColumn(),
  ],
  row(obj, { now }) {
    const spec = field(obj, 'spec');
    const tokenRequests = field(spec, 'tokenRequests');
    const modes = arr<string>(field(spec, 'volumeLifecycleModes')).join(',');
    return {
      cells: [
        name(obj),
        field(spec, 'attachRequired') !== false,
        field(spec, 'podInfoOnMount') === true,
        field(spec, 'storageCapacity') === true,
        Array.isArray(tokenRequests) ? tokenRequests.map((t) => str(field(t, 'audience'))).join(',') : '<unset>',
        field(spec, 'requiresRepublish') === true,
        modes === '' ? '<none>' : modes,
        age(obj, now),
      ],
    };
  },
};

export const csiStorageCapacityPrinter: Printer = {
  columns: [
    nameColumn(),
    column('StorageClassName', 'string', doc('storage.v1.CSIStorageCapacity.storageClassName')),
    column('Capacity', 'string', doc('storage.v1.CSIStorageCapacity.capacity')),
  ],
  row(obj) {
    const capacity = obj.capacity;
    return {
      cells: [
        name(obj),
        str(obj.storageClassName),
        capacity === undefined || capacity === null ? '<unset>' : formatQuantity(capacity),
      ],
    };
  },
};
