/*
 * frugal/frugal.h — everything a host application needs: include this one
 * header and link libfrugal.
 *
 * Plugin authors include frugal/plugin.h and the vtable headers of the
 * kinds they implement instead; those declare no libfrugal function.
 */
#ifndef FRUGAL_FRUGAL_H_
#define FRUGAL_FRUGAL_H_

#include "frugal/checkpoint.h"
#include "frugal/comm.h"
#include "frugal/context.h"
#include "frugal/dlpack.h"
#include "frugal/error.h"
#include "frugal/loss_scaler.h"
#include "frugal/managed_tensor.h"
#include "frugal/options.h"
#include "frugal/packer.h"
#include "frugal/platform.h"
#include "frugal/quantizer.h"
#include "frugal/router.h"
#include "frugal/schedule.h"
#include "frugal/scheduler.h"
#include "frugal/store.h"
#include "frugal/telemetry.h"
#include "frugal/tensor.h"
#include "frugal/types.h"
#include "frugal/version.h"

#endif /* FRUGAL_FRUGAL_H_ */
