#ifndef PAIRSIM_CZEROMQ_SHIM_H
#define PAIRSIM_CZEROMQ_SHIM_H
#include <zmq.h>
#endif
