/** TypeBox schemas of the profile-image routes (docs/api.md "User management"; docs/decisions/0010-profile-images.md). */
import { Type } from 'typebox';

/** The path of `…/users/{userID}/image`: the user whose image it is. */
export const UserParams = Type.Object({ userID: Type.String() });

/** The path of `GET …/users/{userID}/image/{imageID}`: the user and the image asked for. */
export const ImageParams = Type.Object({ userID: Type.String(), imageID: Type.String() });
