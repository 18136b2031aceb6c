import type { EnumTypeDefinition } from '@grpc/proto-loader';
export interface ProtoGrpcType {
    maka: {
        common: {
            v1: {
                ErrorReason: EnumTypeDefinition;
            };
        };
    };
}
