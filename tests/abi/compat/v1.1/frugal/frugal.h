/*
 * frugal/frugal.h — everything a host application needs: include this one
 * header and link libfrugal.
 *
 * Plugin authors include frugal/plugin.h and the vtable headers of the
 * kinds they implement instead; those declare no libfrugal function.
 */
#ifndef FRUGAL_FRUGAL_H_
#define FRUGAL_FRUGAL_H_

#include "frugal/version.h"
#include "frugal/platform.h"
#include "frugal/types.h"
#include "frugal/error.h"
#include "frugal/options.h"
#include "frugal/tensor.h"
#include "frugal/dlpack.h"
#include "frugal/managed_tensor.h"
#include "frugal/context.h"
#include "frugal/schedule.h"
#include "frugal/telemetry.h"
#include "frugal/scheduler.h"
#include "frugal/store.h"
#include "frugal/checkpoint.h"
#include "frugal/packer.h"
#include "frugal/quantizer.h"
#include "frugal/loss_scaler.h"
#include "frugal/router.h"

#endif /* FRUGAL_FRUGAL_H_ */
