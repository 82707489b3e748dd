/**
 * Networking kinds: ingresses, ingress classes, network policies, endpoint
 * slices, service CIDRs and IP addresses.
 */

import { ageColumn, column, doc, nameColumn } from './columns';
import { loadBalancerIngresses } from './core';
import { timestampSince } from './duration';
import { arr, field, formatLabelSelector, listWithMore, str } from './format';
import type { KubeObject, Printer } from './types';

const name = (obj: KubeObject): string => str(obj.metadata?.name);
const age = (obj: KubeObject, now: Date): string => timestampSince(obj.metadata?.creationTimestamp, now);

/** formatHosts: the first three rule hosts, `*` when no rule names one. */
function formatHosts(rules: unknown): string {
  const list = arr(rules);
  const max = 3;
  const hosts: string[] = [];
  let more = false;
  for (const rule of list) {
    if (hosts.length === max) more = true;
    const host = str(field(rule, 'host'));
    if (!more && host !== '') hosts.push(host);
  }
  if (hosts.length === 0) return '*';
  const joined = hosts.join(',');
  return more ? `${joined} + ${list.length - max} more...` : joined;
}

export const ingressPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
    column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    ageColumn(),
  ],
  row(obj, { now }) {
    const className = field(obj, 'spec', 'ingressClassName');
    return {
      cells: [
        name(obj),
        typeof className === 'string' ? className : '<none>',
        formatHosts(field(obj, 'spec', 'rules')),
        loadBalancerIngresses(field(obj, 'status', 'loadBalancer')),
        arr(field(obj, 'spec', 'tls')).length > 0 ? '80, 443' : '80',
        age(obj, now),
      ],
    };
  },
};

export const ingressClassPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Controller', 'string', 'Controller that is responsible for handling this class'),
    column('Parameters', 'string', 'A reference to a resource with additional parameters'),
    ageColumn(),
  ],
  row(obj, { now }) {
    const parameters = field(obj, 'spec', 'parameters');
    let parametersCell = '<none>';
    if (parameters !== undefined && parameters !== null) {
      const apiGroup = field(parameters, 'apiGroup');
      parametersCell = str(field(parameters, 'kind'));
      if (typeof apiGroup === 'string') parametersCell += `.${apiGroup}`;
      parametersCell += `/${str(field(parameters, 'name'))}`;
    }
    return { cells: [name(obj), str(field(obj, 'spec', 'controller')), parametersCell, age(obj, now)] };
  },
};

export const networkPolicyPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Pod-Selector', 'string', doc('networking.v1.NetworkPolicySpec.podSelector')),
    ageColumn(),
  ],
  row(obj, { now }) {
    // podSelector is a struct, never nil: an absent one selects everything and prints <none>.
    return { cells: [name(obj), formatLabelSelector(field(obj, 'spec', 'podSelector') ?? {}), age(obj, now)] };
  },
};

function formatSlicePorts(ports: unknown): string {
  const max = 3;
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const port of arr(ports)) {
    if (list.length < max) {
      const portNumber = field(port, 'port');
      const portName = field(port, 'name');
      list.push(typeof portNumber === 'number' ? String(portNumber) : typeof portName === 'string' ? portName : '*');
    } else if (list.length === max) {
      more = true;
    }
    count++;
  }
  return listWithMore(list, more, count, max);
}

function formatSliceEndpoints(endpoints: unknown): string {
  const max = 3;
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const endpoint of arr(endpoints)) {
    for (const address of arr<string>(field(endpoint, 'addresses'))) {
      if (list.length < max) list.push(address);
      else if (list.length === max) more = true;
      count++;
    }
  }
  return listWithMore(list, more, count, max);
}

export const endpointSlicePrinter: Printer = {
  columns: [
    nameColumn(),
    column('AddressType', 'string', doc('discovery.v1.EndpointSlice.addressType')),
    column('Ports', 'string', doc('discovery.v1.EndpointSlice.ports')),
    column('Endpoints', 'string', doc('discovery.v1.EndpointSlice.endpoints')),
    ageColumn(),
  ],
  row(obj, { now }) {
    return {
      cells: [
        name(obj),
        str(obj.addressType),
        formatSlicePorts(obj.ports),
        formatSliceEndpoints(obj.endpoints),
        age(obj, now),
      ],
    };
  },
};

export const serviceCIDRPrinter: Printer = {
  columns: [nameColumn(), column('CIDRs', 'string', doc('networking.v1.ServiceCIDRSpec.cidrs')), ageColumn()],
  row(obj, { now }) {
    return { cells: [name(obj), arr<string>(field(obj, 'spec', 'cidrs')).join(','), age(obj, now)] };
  },
};

export const ipAddressPrinter: Printer = {
  // Upstream declares two columns but prints three cells (the age has no column).
  columns: [nameColumn(), column('ParentRef', 'string', doc('networking.v1.IPAddressSpec.parentRef'))],
  row(obj, { now }) {
    const parentRef = field(obj, 'spec', 'parentRef');
    let parent = '<none>';
    if (parentRef !== undefined && parentRef !== null) {
      const group = str(field(parentRef, 'group'));
      const resource = str(field(parentRef, 'resource'));
      parent = (group === '' ? resource : `${resource}.${group}`).toLowerCase();
      const namespace = str(field(parentRef, 'namespace'));
      if (namespace !== '') parent += `/${namespace}`;
      parent += `/${str(field(parentRef, 'name'))}`;
    }
    return { cells: [name(obj), parent, age(obj, now)] };
  },
};
