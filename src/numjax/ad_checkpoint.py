"""numjax.ad_checkpoint: checkpoint (remat), names, saving policies and residual inspection."""

from numjax._src.api.checkpoint import checkpoint as checkpoint
from numjax._src.api.checkpoint import checkpoint_name as checkpoint_name
from numjax._src.api.checkpoint import checkpoint_policies as checkpoint_policies
from numjax._src.api.checkpoint import print_saved_residuals as print_saved_residuals
from numjax._src.api.checkpoint import remat as remat
from numjax._src.api.checkpoint import saved_residuals as saved_residuals
