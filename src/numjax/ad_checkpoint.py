"""numjax.ad_checkpoint: checkpoint (remat), names and saving policies."""

from numjax._src.api.checkpoint import checkpoint as checkpoint
from numjax._src.api.checkpoint import checkpoint_name as checkpoint_name
from numjax._src.api.checkpoint import checkpoint_policies as checkpoint_policies
from numjax._src.api.checkpoint import remat as remat
