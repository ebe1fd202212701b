/**
 * The public entry of the organisations context: what the other contexts may use of it (docs/development.md "Bounded
 * contexts"). Each name is documented where it is defined.
 */
export { anonymousRoutes } from './anonymous/routes.js';
export { AnonymousService } from './anonymous/service.js';
export { sendAuditExport } from './audit/export.js';
export { presentAuditEntry } from './audit/present.js';
export { auditRoutes } from './audit/routes.js';
export { AuditEntryBody, AuditExportQuery, AuditQuery } from './audit/schemas.js';
export { AuditSealer } from './audit/sealer.js';
export {
  type AuditEntry,
  AuditLogService,
  type AuditRow,
  type AuditVerification,
  auditActor,
  auditChanges,
  auditFilter,
  recordAudit,
} from './audit/service.js';
export { individualRoutes } from './individuals/routes.js';
export { AddBody, ListQuery } from './individuals/schemas.js';
export {
  createFederatedUser,
  type IndividualBody,
  type IndividualRow,
  IndividualService,
  managesIndividuals,
  presentIndividual,
} from './individuals/service.js';
export { invitationRoutes } from './invitations/routes.js';
export { InvitationService } from './invitations/service.js';
export { organisationName, ownerAddresses } from './membership/directory.js';
export { eraseMemberships } from './membership/erasure.js';
export { ExportedRole, ExportedSubscription, exportMemberships } from './membership/export.js';
export { rolesInOrganisation, rolesSql, subscribe } from './membership/membership.js';
export { RolesCache } from './membership/roles-cache.js';
export { orgRoutes } from './membership/routes.js';
export { type StaffInvitationBody, StaffInvitations } from './staff/invitations.js';
export { applyStaffPolicy, StaffPolicies } from './staff/policy.js';
export { staffRoutes } from './staff/routes.js';
export { auditStaffSecurity } from './staff/security-audit.js';
export { type StaffBody, StaffService } from './staff/service.js';
