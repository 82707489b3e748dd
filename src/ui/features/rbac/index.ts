/** The RBAC lab: policy read off roles and bindings, and the panel. */
export { RbacPanel } from './RbacPanel';
export { bindingNames, describeRule, grantsFor, ruleAllows, whoCan, type Grant, type Policy, type PolicyRule, type Subject } from './policy';
