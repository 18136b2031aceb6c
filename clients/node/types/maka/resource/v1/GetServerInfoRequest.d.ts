/**
 * GetServerInfoRequest has no fields.
 */
export interface GetServerInfoRequest {
}
/**
 * GetServerInfoRequest has no fields.
 */
export interface GetServerInfoRequest__Output {
}
