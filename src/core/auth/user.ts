/**
 * The identity an authenticated request carries (k8s.io/apiserver/pkg/authentication/user.Info).
 * Values are opaque to authentication; authorizers and admission read them.
 */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  /** Additional information for authorizers; never secrets (it may be logged or stored). */
  extra?: Record<string, string[]>;
}

export const anonymousUser = 'system:anonymous';
export const allAuthenticated = 'system:authenticated';
export const allUnauthenticated = 'system:unauthenticated';
export const systemMasters = 'system:masters';

/** The user of a request without credentials (upstream's anonymous authenticator). One object for every such request: nobody may change it. */
export const anonymousUserInfo: UserInfo = Object.freeze({ username: anonymousUser, groups: Object.freeze([allUnauthenticated]) as string[] });
