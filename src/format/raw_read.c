/* stub: replaced by the analysis work */
#include "raw.h"
