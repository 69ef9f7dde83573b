/**
 * Wiring of enterprise sign-in (issue 42): the audit log, SSO provisioning and group mappings
 * shared by SAML, OpenID Connect and SCIM; SAML settings and sign-in; SCIM's token, users and groups.
 */
import type { Config } from "../../config";
import type { Logger } from "../../log";
import type { Db } from "../../storage/db";
import type { Action } from "../access/permissions";
import type { Auth } from "../auth/auth";
import { createSamlSettings, type SamlSettingsServices } from "../saml/settings";
import { createSamlSignIn, type SamlSignInServices } from "../saml/sign-in";
import { createScimGroups, type ScimGroupServices } from "../scim/groups";
import { listResponse, resourceTypes, schemas, serviceProviderConfig } from "../scim/shapes";
import { createScimTokens, type ScimTokenServices } from "../scim/token";
import { createScimUsers, type ScimUserServices } from "../scim/users";
import type { OrgSummary, Viewer } from "../types";
import { type AuditLogServices, createAuditLogServices } from "./audit-log";
import { createGroupMappings, type GroupMappingServices } from "./group-mappings";
import { createIdentityProvisioning, type IdentityProvisioning } from "./provisioning";

export interface IdentityServices {
  audit: AuditLogServices;
  provisioning: IdentityProvisioning;
  groupMappings: GroupMappingServices;
  saml: SamlSettingsServices & SamlSignInServices;
  scim: {
    token: ScimTokenServices;
    users: ScimUserServices;
    groups: ScimGroupServices;
    /** ServiceProviderConfig, Schemas, ResourceTypes (with the SCIM token, like every SCIM route) */
    discovery(authorization: string | null, orgSlug: string, what: "ServiceProviderConfig" | "Schemas" | "ResourceTypes"): Promise<unknown>;
  };
}

export function createIdentityServices(deps: {
  db: Db;
  auth: Auth;
  config: Config;
  log: Logger;
  now: () => number;
  authorize(viewer: Viewer, orgSlug: string, action: Action): Promise<OrgSummary>;
}): IdentityServices {
  const { db, auth, config, log, now, authorize } = deps;
  const audit = createAuditLogServices({ db, now, log, authorize });
  const provisioning = createIdentityProvisioning({ db, auth, now });
  const settings = createSamlSettings({ db, auth, config, log, now, audit, authorize });
  const signIn = createSamlSignIn({ db, config, log, now, settings, provisioning, audit, authorize });
  const token = createScimTokens({ db, publicUrl: config.publicUrl, now, audit, authorize });
  return {
    audit,
    provisioning,
    groupMappings: createGroupMappings({ db, now, audit, authorize }),
    saml: { ...settings, ...signIn },
    scim: {
      token,
      users: createScimUsers({ db, auth, now, tokens: token, audit }),
      groups: createScimGroups({ db, now, tokens: token, audit }),
      async discovery(authorization, orgSlug, what) {
        await token.authenticate(authorization, orgSlug);
        if (what === "ServiceProviderConfig") return serviceProviderConfig();
        const list = what === "Schemas" ? schemas() : resourceTypes();
        return listResponse(list, list.length, 1);
      },
    },
  };
}
