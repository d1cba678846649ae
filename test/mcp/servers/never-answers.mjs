// 读 stdin（并记录），但从不回答任何请求；stdin 关闭后退出
import { serve } from './lib.mjs';

serve({ onMessage: () => true });
