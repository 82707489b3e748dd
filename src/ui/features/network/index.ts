/** The Network panel: reachability between pods under NetworkPolicies, each verdict explained. */
export { NetworkPanel } from './NetworkPanel';
export { clusterDns, clusterDnsEndpoint, defaultPort, describePeer, describePort, explain, isFinished, judge, podEndpoint, podEndpoints, policySummary, policyWorld, reachabilityMatrix, type Column, type Endpoint, type Explanation, type PortChoice } from './reachability';
