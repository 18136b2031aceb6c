import type { Interaction as _maka_kernel_v1_Interaction, Interaction__Output as _maka_kernel_v1_Interaction__Output } from '../../../maka/kernel/v1/Interaction.js';
/**
 * ListInteractionsResponse is one page of a session's interaction requests.
 */
export interface ListInteractionsResponse {
    /**
     * The requests, oldest first (by when they were raised).
     */
    'interactions'?: (_maka_kernel_v1_Interaction)[];
    /**
     * The token for the next page (opaque); empty on the last page. A page cut short by the
     * byte bound has a token too: read on until it is empty.
     */
    'nextPageToken'?: (string);
}
/**
 * ListInteractionsResponse is one page of a session's interaction requests.
 */
export interface ListInteractionsResponse__Output {
    /**
     * The requests, oldest first (by when they were raised).
     */
    'interactions': (_maka_kernel_v1_Interaction__Output)[];
    /**
     * The token for the next page (opaque); empty on the last page. A page cut short by the
     * byte bound has a token too: read on until it is empty.
     */
    'nextPageToken': (string);
}
