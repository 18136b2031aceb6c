/**
 * InteractionKind names the kind of an interaction request.
 */
export declare const InteractionKind: {
    /**
     * Not set.
     */
    readonly INTERACTION_KIND_UNSPECIFIED: "INTERACTION_KIND_UNSPECIFIED";
    /**
     * A sandbox-boundary request.
     */
    readonly INTERACTION_KIND_SANDBOX_BOUNDARY: "INTERACTION_KIND_SANDBOX_BOUNDARY";
    /**
     * A user question.
     */
    readonly INTERACTION_KIND_USER_QUESTION: "INTERACTION_KIND_USER_QUESTION";
};
/**
 * InteractionKind names the kind of an interaction request.
 */
export type InteractionKind = 
/**
 * Not set.
 */
'INTERACTION_KIND_UNSPECIFIED' | 0
/**
 * A sandbox-boundary request.
 */
 | 'INTERACTION_KIND_SANDBOX_BOUNDARY' | 1
/**
 * A user question.
 */
 | 'INTERACTION_KIND_USER_QUESTION' | 2;
/**
 * InteractionKind names the kind of an interaction request.
 */
export type InteractionKind__Output = typeof InteractionKind[keyof typeof InteractionKind];
