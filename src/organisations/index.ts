/**
 * The public entry of the organisations context: what the other contexts may use of it (docs/development.md "Bounded
 * contexts"). Each name is documented where it is defined.
 */
export { anonymousRoutes } from './anonymous/routes.js';
export { AnonymousService } from './anonymous/service.js';
export { AuditLogService, type AuditRow, recordAudit } from './audit/service.js';
export { organisationName } from './directory.js';
export { eraseMemberships } from './erasure.js';
export { ExportedRole, ExportedSubscription, exportMemberships } from './export.js';
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
export { rolesInOrganisation, rolesSql, subscribe } from './membership.js';
export { RolesCache } from './roles-cache.js';
export { orgRoutes } from './routes.js';
export { AuditQuery } from './schemas.js';
