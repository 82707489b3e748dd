/** One worked example per CEL library the API server offers, in the environment where it is typical. */
import type { CelEnvironment } from './celSlice';

export interface CelExample {
  library: string;
  environment: CelEnvironment;
  expression: string;
  variables: string;
  schema?: string;
}

const replicasSchema = 'type: object\nproperties:\n  replicas:\n    type: integer\n  maxReplicas:\n    type: integer\n';

export const CEL_EXAMPLES: readonly CelExample[] = [
  { library: 'standard (arithmetic)', environment: 'plain', expression: '1 + 2 * 3', variables: '' },
  { library: 'CRD rule (self, oldSelf)', environment: 'crd', expression: 'self.replicas <= self.maxReplicas', variables: 'self:\n  replicas: 3\n  maxReplicas: 5\n', schema: replicasSchema },
  { library: 'CRD transition rule', environment: 'crd', expression: 'self.replicas >= oldSelf.replicas', variables: 'self:\n  replicas: 3\n  maxReplicas: 5\noldSelf:\n  replicas: 2\n  maxReplicas: 5\n', schema: replicasSchema },
  { library: 'strings', environment: 'plain', expression: "'Hello, World'.lowerAscii().split(', ')", variables: '' },
  { library: 'lists (Kubernetes)', environment: 'plain', expression: '[3, 1, 2].isSorted() || [1, 2, 3].sum() == 6', variables: '' },
  { library: 'sets', environment: 'plain', expression: 'sets.contains([1, 2, 3], [2, 3])', variables: '' },
  { library: 'regex', environment: 'plain', expression: "'abc 123 def 456'.findAll('[0-9]+')", variables: '' },
  { library: 'urls', environment: 'plain', expression: "url('https://kubernetes.io:443/docs?q=cel').getHost()", variables: '' },
  { library: 'quantity', environment: 'plain', expression: "quantity('1.5Gi').isGreaterThan(quantity('1G'))", variables: '' },
  { library: 'IP and CIDR', environment: 'plain', expression: "cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))", variables: '' },
  { library: 'format', environment: 'plain', expression: "format.dns1123Label().validate('Not_A_Label')", variables: '' },
  { library: 'semver', environment: 'plain', expression: "semver('1.32.0').isGreaterThan(semver('1.31.4'))", variables: '' },
  {
    library: 'admission policy',
    environment: 'admission',
    expression: "object.spec.replicas <= 5 && request.operation == 'CREATE'",
    variables: 'object:\n  apiVersion: apps/v1\n  kind: Deployment\n  spec:\n    replicas: 3\nrequest:\n  operation: CREATE\n',
  },
  { library: 'authentication claims', environment: 'authentication', expression: "claims.email.endsWith('@example.com')", variables: 'claims:\n  sub: alice\n  email: alice@example.com\n' },
  { library: 'authorization match condition', environment: 'authorization', expression: "request.user != 'system:anonymous'", variables: 'request:\n  user: alice\n' },
];
